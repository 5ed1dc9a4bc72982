// CAtomicWord is a header: its functions are inlined where Swift calls them.
#include "CAtomicWord.h"
