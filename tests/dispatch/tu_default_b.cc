#define TU_ENTRY RunDefaultB
#include "tu_body.h"
