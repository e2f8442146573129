# places/: the place interface and its table.
libconch_la_SOURCES += places/place.h places/places.c
