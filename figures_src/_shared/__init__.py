"""What several article modules share: `charts` (the attention heatmap with its colour policy, the
bar chart) and `inputs` (the worked example's model, the lab's small matrices).

The build runs only the files directly in figures_src/ whose names do not start with '_' (see
anatomia_engine/runner.py `module_names`); a folder is never run, so nothing here is taken for an
article module. An article module imports from here, and its run records these files as its inputs.
"""
