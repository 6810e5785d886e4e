// Every Hugging Face fixture case (/work/shared/fixtures/hf) loaded with relpos::load_model reproduces
// Transformers 4.34.1: hidden states ≤ 1e-4 and attention probabilities ≤ 1e-5 on valid positions.
#include "hf_fixture_support.h"

using relpos_test::run_hf_fixture;

TEST_CASE("hf fixture deberta-v2-a-v2like", "[hf-fixture]") { run_hf_fixture("deberta-v2-a-v2like"); }
TEST_CASE("hf fixture deberta-v2-b-v3like", "[hf-fixture]") { run_hf_fixture("deberta-v2-b-v3like"); }
TEST_CASE("hf fixture deberta-v2-c-c2p-only", "[hf-fixture]") { run_hf_fixture("deberta-v2-c-c2p-only"); }
TEST_CASE("hf fixture bert-absolute", "[hf-fixture]") { run_hf_fixture("bert-absolute"); }
TEST_CASE("hf fixture bert-relative-key", "[hf-fixture]") { run_hf_fixture("bert-relative-key"); }
TEST_CASE("hf fixture bert-relative-key-query", "[hf-fixture]") { run_hf_fixture("bert-relative-key-query"); }
TEST_CASE("hf fixture distilbert-sinusoidal", "[hf-fixture]") { run_hf_fixture("distilbert-sinusoidal"); }
TEST_CASE("hf fixture roformer-rotary", "[hf-fixture]") { run_hf_fixture("roformer-rotary"); }
TEST_CASE("hf fixture t5-a-classic", "[hf-fixture]") { run_hf_fixture("t5-a-classic"); }
TEST_CASE("hf fixture t5-b-v1_1-gated-gelu", "[hf-fixture]") { run_hf_fixture("t5-b-v1_1-gated-gelu"); }
TEST_CASE("hf fixture bloom-alibi", "[hf-fixture]") { run_hf_fixture("bloom-alibi"); }
TEST_CASE("hf fixture mpt-alibi", "[hf-fixture]") { run_hf_fixture("mpt-alibi"); }
TEST_CASE("hf fixture llama-rope", "[hf-fixture]") { run_hf_fixture("llama-rope"); }
TEST_CASE("hf fixture transfo-xl", "[hf-fixture]") { run_hf_fixture("transfo-xl"); }
