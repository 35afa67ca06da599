// WaitList is header-only; this file anchors it in the library.
#include "lib/notify/waiters.h"
