/* A test's hold on a stage of the product: where the environment variable var names a folder,
 * the stage makes FOLDER/held (the test's sign that it is there now) and waits until the fifo
 * FOLDER/go is opened for writing and closed, which a test does to let it go, or never does
 * when it kills the process in the stage. Unset (every real run), it costs a getenv. */
#ifndef CONCH_TEST_HOLD_H
#define CONCH_TEST_HOLD_H

void cp_test_hold(const char *var);

#endif
