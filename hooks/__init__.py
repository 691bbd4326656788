"""The MkDocs glue: runs figures_src, fills placeholders, serves local assets."""
