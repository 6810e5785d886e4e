// Reference scheme none: logit = q·k / sqrt(head_dim), nothing else.
#pragma once

#include "reference/attention.h"

namespace ref {

class None : public Scheme {};

}  // namespace ref
