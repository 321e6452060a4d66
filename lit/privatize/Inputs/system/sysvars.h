/* A library header, included with -isystem: its variables are the
 * library's, not the program's, and stay as they are. */
extern int lib_counter;
static int lib_static;
static inline int lib_next(void) { return ++lib_static + lib_counter; }
