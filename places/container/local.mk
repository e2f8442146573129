# places/container/ adds its sources, tests and scripts here.
