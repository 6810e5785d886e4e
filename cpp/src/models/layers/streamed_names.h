// Which tensors of a checkpoint StreamedCheckpoint (streamed_checkpoint.h) converts as they arrive, per family: the
// names a family loads with Linear::load (→ GEMM panels, int8, or a WeightSink) and EmbeddingTable::load. Every
// other tensor stays float32 (or raw integers) for the family to read with to_f32 / to_i64.
//
//   model_type "" (not named),    the decoder and BERT rules together:
//   llama qwen3 gemma3_text, jina_bert_v2 (GGUF)
//   bert roberta xlm-roberta        linear  `[model.]layers.N.….*_proj.weight`,
//   camembert electra                       `[bert.|roberta.|electra.]encoder.layer.N.{attention.self.{query,key,value},
//                                           attention.output.dense,intermediate.dense,output.dense}.weight`
//                                   table   `[model.]embed_tokens.weight`, `[…]embeddings.{word,position}_embeddings.weight`
//   deberta-v2                      linear  `[deberta.]encoder.layer.N.{attention.self.{query,key,value,pos_key,pos_query}_proj,
//                                           attention.output.dense,intermediate.dense,output.dense}.weight` (with a sink
//                                           the relative embeddings' projections through them are computed on the GPU:
//                                           deberta_v2.cpp, plan.h Recorder::derive)
//                                   table   `[deberta.]embeddings.word_embeddings.weight`
//   mpnet                           linear  `[mpnet.]encoder.layer.N.{attention.attn.{q,k,v,o},intermediate.dense,
//                                           output.dense}.weight`
//                                   table   `[mpnet.]embeddings.{word,position}_embeddings.weight`
//   modernbert                      linear  `[model.]layers.N.{attn.Wqkv,attn.Wo,mlp.Wi,mlp.Wo}.weight`
//                                   table   `[model.]embeddings.tok_embeddings.weight`
//   nomic_bert                      linear  `[bert.|model.]encoder.layers.N.{attn.Wqkv,attn.out_proj,mlp.fc11,mlp.fc12,
//                                           mlp.fc1,mlp.fc2}.weight`
//                                   table   `[…]embeddings.{word,position}_embeddings.weight`
// With a GPU sink (WebGPU loads; q8: as the GPU's int8 rows) the tables go to the GPU as the linear layers do, except where
// the family changes its table after reading it (tables_stream_to_sink false: gemma3_text folds sqrt(hidden) into
// embed_tokens); a q8 DeBERTa-v2 keeps its linear layers (q8_linears_stream_to_sink).
// A GGUF file takes the rule of the model_type its architecture maps to (io/gguf_model.h).
// Only 2-D tensors take these forms.
#pragma once

#include <string>

namespace relpos::models {

enum class StreamForm { Float, Linear, Table };

// True for the model_types whose checkpoints StreamedCheckpoint converts as they stream in.
bool streams_family(const std::string& model_type);

// The form a 2-D tensor `name` takes in a `model_type` checkpoint.
StreamForm stream_form(const std::string& model_type, const std::string& name);

// Whether a `model_type` load may send its embedding tables to a GPU sink as they stream in (the family reads them
// as they are; it runs them on the CPU only through the plan the GPU executes).
bool tables_stream_to_sink(const std::string& model_type);
// Whether a q8 load of `model_type` may send its linear layers to a GPU sink as int8 rows (false for deberta-v2: its
// relative-embedding tables are projected through its q8 query / key projections on the CPU at load).
bool q8_linears_stream_to_sink(const std::string& model_type);

}  // namespace relpos::models
