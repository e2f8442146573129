# places/egress/ adds its sources, tests and scripts here.
