/* SIGINT, SIGTERM and SIGHUP turned into a readable fd, so loops can stop and clean up first. */
#ifndef CONCH_SIGNALS_H
#define CONCH_SIGNALS_H

/* Installs the handlers once; returns the fd that becomes readable on a signal. */
int cp_signals_install(void);
/* The signal caught, or 0. */
int cp_signals_caught(void);
/* Milliseconds since the first signal was caught, or -1 when none was. */
long cp_signals_since_ms(void);

#endif
