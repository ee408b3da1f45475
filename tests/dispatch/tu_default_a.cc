#define TU_ENTRY RunDefaultA
#include "tu_body.h"
