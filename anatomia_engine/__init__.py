"""The engine behind the pages: computed values and figures, the placeholder language, the plugin."""
