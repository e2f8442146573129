# tests/ adds its sources, tests and scripts here.
