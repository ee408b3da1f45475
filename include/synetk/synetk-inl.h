// Copyright synetk authors. SPDX-License-Identifier: MIT
// Every per-target part of synetk. synetk.h re-includes this file once per
// Highway target. A translation unit that runs its own foreach_target.h can
// include this file from its own HWY_TARGET_INCLUDE file instead, and then
// include "synetk/api.h" in its HWY_ONCE part.

#include "synetk/detail/target_info-inl.h"
#include "synetk/detail/elements-inl.h"
#include "synetk/detail/channel_runs-inl.h"
#include "synetk/ops/fused-inl.h"
#include "synetk/ops/gather-inl.h"
#include "synetk/ops/normalize-inl.h"
#include "synetk/ops/quant-inl.h"
#include "synetk/ops/quant_scale-inl.h"
#include "synetk/ops/pooling-inl.h"
