// Compiled with -mavx2 -mfma: its "SSE4" code contains VEX instructions.
#define TU_ENTRY RunAvx2
#include "tu_body.h"
