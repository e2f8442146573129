# places/cloud/: the Daytona place: client, sandbox lifecycle, toolbox, the mirror's transport.
libconch_la_SOURCES += \
	places/cloud/daytona.c places/cloud/daytona.h \
	places/cloud/sandbox-json.c places/cloud/sandbox.c places/cloud/sandbox.h \
	places/cloud/toolbox.c places/cloud/toolbox.h \
	places/cloud/transport-daytona.c places/cloud/transport-daytona.h \
	places/cloud/place-cloud.c

# The place end to end against a Daytona test server on loopback (tests/cloud/).
TESTS += tests/cloud/cloud.test
EXTRA_DIST += tests/cloud/cloud.test tests/cloud/daytona_server.py
