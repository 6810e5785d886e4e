// Default behaviour of relpos::Scheme: no rewrite, no shared state or scratch, no terms, 1/sqrt(head_dim).
#include "relpos/scheme.h"

#include <cmath>

namespace relpos {

float Scheme::content_scale(int head_dim) const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

void Scheme::rewrite_qkv(const HeadView&, float*, float*, float*) const {}

void Scheme::rewrite_qkv_with_scratch(const HeadView& head, float*, float* q, float* k, float* v) const {
  rewrite_qkv(head, q, k, v);
}

std::size_t Scheme::shared_floats(const AttentionDims&, bool) const { return 0; }

void Scheme::begin_call(const AttentionDims&, bool, float*) const {}

std::size_t Scheme::scratch_floats(const AttentionDims&, int) const { return 0; }

void Scheme::begin_head(const HeadView&, float*) const {}

void Scheme::add_logit_terms(const HeadView&, float*, int, int, int, int, float*, std::size_t, float* const*) const {}

void Scheme::add_value_term(const HeadView&, float*, int, int, int, int, const float*, std::size_t, float*) const {}

}  // namespace relpos
