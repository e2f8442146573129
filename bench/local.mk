EXTRA_DIST += bench/container-roundtrip
