# bench/ adds its sources, tests and scripts here.
