// Seed-corpus generator for the fuzz targets (built by fuzz/CMakeLists.txt, run by fuzz/build.sh).
//
//   make_seeds <fixtures/hf dir> <corpus dir>
//
// Writes, from the shared Hugging Face fixtures (never copied into the repository):
//   <corpus>/safetensors/  small safetensors files: from every model.safetensors and
//                          expected.safetensors, up to 6 tensors of ≤ 1 KiB each (F32 and I64)
//                          repacked with fresh offsets, plus copies converted to F16, BF16 and I32,
//                          plus a few hand-written edge cases (empty header, empty tensor, metadata);
//   <corpus>/model_config/ every config.json, plus a minimal config per model_type;
//   <corpus>/model_load/   per case (index = position of its folder, sorted by name): index byte +
//                          model.safetensors ("raw" mode), and 0x80|index + its header JSON, alone
//                          and followed by NUL + config.json ("header" mode, see fuzz_model_load.cpp);
//   <corpus>/gguf/         every GGUF file of <fixtures>/../gguf/ up to 64 KiB (llama.cpp's converter and
//                          quantizer: F32/F16/BF16/Q8_0/Q4_0/Q5_0 tensors, every architecture), plus one small
//                          file per block type the fixtures hold only in large files (Q4_1, Q5_1, Q4_K, Q5_K,
//                          Q6_K) and one with every metadata value type.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_all(const std::string& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void write_text(const std::string& path, const std::string& text) { write_all(path, Bytes(text.begin(), text.end())); }

Bytes pack(const std::string& header, const Bytes& data) {
  Bytes out(8);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::uint8_t>(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

struct Tensor {
  std::string name, dtype;
  json shape;
  Bytes data;
};

// Tensors of a well-formed fixture file, smallest first; empty on any surprise.
std::vector<Tensor> small_tensors(const Bytes& file, std::size_t max_bytes, std::size_t max_count) {
  std::vector<Tensor> out;
  if (file.size() < 8) return out;
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(file[i]) << (8 * i);
  if (n > file.size() - 8) return out;
  const json header = json::parse(file.begin() + 8, file.begin() + 8 + static_cast<std::ptrdiff_t>(n), nullptr, false);
  if (!header.is_object()) return out;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::size_t begin = it.value()["data_offsets"][0], end = it.value()["data_offsets"][1];
    if (end - begin > max_bytes || 8 + n + end > file.size()) continue;
    out.push_back({it.key(), it.value()["dtype"], it.value()["shape"],
                   Bytes(file.begin() + 8 + n + begin, file.begin() + 8 + n + end)});
  }
  std::stable_sort(out.begin(), out.end(), [](const Tensor& a, const Tensor& b) {
    if ((a.dtype == "I64") != (b.dtype == "I64")) return a.dtype == "I64";  // keep integer tensors
    return a.data.size() < b.data.size();
  });
  if (out.size() > max_count) out.resize(max_count);
  return out;
}

Bytes repack(const std::vector<Tensor>& tensors) {
  json header = json::object();
  header["__metadata__"] = {{"format", "pt"}};
  Bytes data;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.data.size()}}};
    data.insert(data.end(), t.data.begin(), t.data.end());
  }
  return pack(header.dump(), data);
}

// F32 → F16 / BF16 (bit truncation: the values only need to be plausible), I64 → I32.
std::vector<Tensor> convert(std::vector<Tensor> tensors, const std::string& float_dtype) {
  for (auto& t : tensors) {
    Bytes d;
    if (t.dtype == "F32") {
      for (std::size_t i = 0; i + 4 <= t.data.size(); i += 4) {
        std::uint32_t bits;
        std::memcpy(&bits, &t.data[i], 4);
        std::uint16_t h;
        if (float_dtype == "BF16") {
          h = static_cast<std::uint16_t>(bits >> 16);
        } else {
          const std::uint32_t sign = (bits >> 16) & 0x8000u;
          const int exp = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
          h = static_cast<std::uint16_t>(exp <= 0 ? sign : exp >= 31 ? (sign | 0x7C00u)
                                                                       : (sign | (exp << 10) | ((bits >> 13) & 0x3FFu)));
        }
        d.push_back(static_cast<std::uint8_t>(h));
        d.push_back(static_cast<std::uint8_t>(h >> 8));
      }
      t.dtype = float_dtype;
    } else if (t.dtype == "I64") {
      for (std::size_t i = 0; i + 8 <= t.data.size(); i += 8) d.insert(d.end(), &t.data[i], &t.data[i] + 4);
      t.dtype = "I32";
    } else {
      d = t.data;
    }
    t.data = d;
  }
  return tensors;
}

std::vector<std::string> sorted_cases(const std::string& root) {
  std::vector<std::string> cases;
  if (DIR* dir = opendir(root.c_str())) {
    while (dirent* e = readdir(dir)) {
      struct stat st;
      if (e->d_name[0] != '.' && stat((root + "/" + e->d_name).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        cases.push_back(e->d_name);
    }
    closedir(dir);
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

// A GGUF file written field by field (little-endian).
struct GgufWriter {
  Bytes b;
  GgufWriter& u8(std::uint8_t v) { b.push_back(v); return *this; }
  GgufWriter& u32(std::uint32_t v) { for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i))); return *this; }
  GgufWriter& u64(std::uint64_t v) { for (int i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i))); return *this; }
  GgufWriter& str(const std::string& s) { u64(s.size()); b.insert(b.end(), s.begin(), s.end()); return *this; }
  GgufWriter& pad() { while (b.size() % 32) b.push_back(0); return *this; }
};

int gguf_seeds(const std::string& gguf_root, const std::string& out) {
  mkdir(out.c_str(), 0755);
  int written = 0;
  for (const auto& c : sorted_cases(gguf_root)) {
    if (DIR* dir = opendir((gguf_root + "/" + c).c_str())) {
      while (dirent* e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() < 5 || name.compare(name.size() - 5, 5, ".gguf") != 0) continue;
        const Bytes bytes = read_all(gguf_root + "/" + c + "/" + name);
        if (bytes.empty() || bytes.size() > 65536) continue;
        write_all(out + c + "-" + name, bytes);
        ++written;
      }
      closedir(dir);
    }
  }
  // one tensor per block type: {ggml type, elements, block bytes per 32 or 256}
  struct Block { const char* name; std::uint32_t type; std::uint64_t n; std::size_t bytes; };
  for (const Block& k : {Block{"q4_1", 3, 64, 40}, Block{"q5_1", 7, 64, 48}, Block{"q4_k", 12, 256, 144},
                         Block{"q5_k", 13, 256, 176}, Block{"q6_k", 14, 256, 210}}) {
    GgufWriter w;
    w.b = {'G', 'G', 'U', 'F'};
    w.u32(3).u64(1).u64(1).str("general.architecture").u32(8).str("qwen3");
    w.str("token_embd.weight").u32(2).u64(k.n).u64(1).u32(k.type).u64(0).pad();
    for (std::size_t i = 0; i < k.bytes; ++i) w.u8(static_cast<std::uint8_t>(i * 37 + 11));
    write_all(out + "block-" + k.name + ".gguf", w.b);
    ++written;
  }
  GgufWriter v;  // every value type, an array of strings and one of bools, v2
  v.b = {'G', 'G', 'U', 'F'};
  v.u32(2).u64(0).u64(14);
  v.str("u8").u32(0).u8(1).str("i8").u32(1).u8(0xFF).str("u16").u32(2).u8(1).u8(0).str("i16").u32(3).u8(0xFF).u8(0xFF);
  v.str("u32").u32(4).u32(7).str("i32").u32(5).u32(0xFFFFFFFFu).str("f32").u32(6).u32(0x3F800000u).str("bool").u32(7).u8(1);
  v.str("string").u32(8).str("text").str("u64").u32(10).u64(1).str("i64").u32(11).u64(~0ull).str("f64").u32(12).u64(0x3FF0000000000000ull);
  v.str("general.alignment").u32(4).u32(64);
  v.str("tokens").u32(9).u32(8).u64(2).str("a").str("b");
  write_all(out + "value-types.gguf", v.b);
  return written + 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_seeds <fixtures/hf dir> <corpus dir>\n");
    return 2;
  }
  const std::string root = argv[1], corpus = argv[2];
  for (const char* sub : {"", "/safetensors", "/model_config", "/model_load"}) mkdir((corpus + sub).c_str(), 0755);
  const std::string st_dir = corpus + "/safetensors/", cfg_dir = corpus + "/model_config/",
                    load_dir = corpus + "/model_load/";

  const auto cases = sorted_cases(root);
  int written = 0;
  for (std::size_t index = 0; index < cases.size(); ++index) {
    const std::string& c = cases[index];
    const std::string dir = root + "/" + c + "/";
    const Bytes config = read_all(dir + "config.json");
    if (!config.empty()) write_all(cfg_dir + c + ".json", config), ++written;
    for (const char* file : {"model", "expected"}) {
      const Bytes whole = read_all(dir + file + ".safetensors");
      const auto tensors = small_tensors(whole, 1024, 6);
      if (tensors.empty()) continue;
      const std::string stem = st_dir + c + "-" + file;
      write_all(stem + ".safetensors", repack(tensors));
      write_all(stem + "-f16.safetensors", repack(convert(tensors, "F16")));
      write_all(stem + "-bf16.safetensors", repack(convert(tensors, "BF16")));
      written += 3;
      if (std::string(file) == "model") {
        Bytes raw{static_cast<std::uint8_t>(index)};
        raw.insert(raw.end(), whole.begin(), whole.end());
        write_all(load_dir + c + ".bin", raw), ++written;
        // Header mode (see fuzz_model_load.cpp): the header alone, and header + NUL + config.json.
        std::uint64_t n = 0;
        for (int i = 0; i < 8; ++i) n |= static_cast<std::uint64_t>(whole[i]) << (8 * i);
        Bytes header{static_cast<std::uint8_t>(0x80 | index)};
        header.insert(header.end(), whole.begin() + 8, whole.begin() + 8 + static_cast<std::ptrdiff_t>(n));
        while (!header.empty() && header.back() == ' ') header.pop_back();
        write_all(load_dir + c + "-header.bin", header), ++written;
        header.push_back(0);
        header.insert(header.end(), config.begin(), config.end());
        write_all(load_dir + c + "-header-config.bin", header), ++written;
      }
    }
  }

  // Hand-written edge cases.
  write_all(st_dir + "edge-empty-object.safetensors", pack("{}", {}));
  write_all(st_dir + "edge-metadata-only.safetensors", pack(R"({"__metadata__":{"format":"pt"}})", {}));
  write_all(st_dir + "edge-empty-tensor.safetensors",
            pack(R"({"e":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]},"s":{"dtype":"F16","shape":[],"data_offsets":[0,2]}})",
                 {0x00, 0x3C}));
  write_all(st_dir + "edge-all-dtypes.safetensors",
            pack(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[2],"data_offsets":[4,8]},)"
                 R"("c":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]},"d":{"dtype":"I64","shape":[1],"data_offsets":[12,20]},)"
                 R"("e":{"dtype":"I32","shape":[1,1],"data_offsets":[20,24]}})",
                 Bytes{0, 0, 128, 63, 1, 0, 0, 124, 128, 63, 255, 127, 255, 255, 255, 255, 255, 255, 255, 127, 0, 0, 0, 128}));
  for (const char* t : {"bert", "deberta-v2", "t5", "roformer", "distilbert", "transfo-xl", "bloom", "mpt", "llama"})
    write_text(cfg_dir + "minimal-" + t + ".json", std::string("{\"model_type\":\"") + t + "\"}");
  write_text(cfg_dir + "edge-deberta-pos-att-string.json",
             R"({"model_type":"deberta-v2","pos_att_type":"p2c|C2P","hidden_size":32,"num_attention_heads":2})");
  write_text(cfg_dir + "edge-mpt-attn-config.json",
             R"({"model_type":"mpt","d_model":32,"n_heads":4,"expansion_ratio":2,"attn_config":{"alibi":true,"alibi_bias_max":8,"clip_qkv":null,"softmax_scale":0.5}})");
  // fuzz_streamed_checkpoint: byte 0 = mode (size known, q8, chunk seed), then a safetensors file — every
  // safetensors seed under four modes, plus a file with the names of the converted forms (a BF16 table
  // [70, 8], a F32 linear layer [130, 8], a F16 norm [8]).
  mkdir((corpus + "/streamed_checkpoint").c_str(), 0755);
  const std::string sc_dir = corpus + "/streamed_checkpoint/";
  Bytes forms_data;
  for (int i = 0; i < 70 * 8; ++i) forms_data.insert(forms_data.end(), {static_cast<std::uint8_t>(i * 7), static_cast<std::uint8_t>(0x3C + (i % 3))});
  for (int i = 0; i < 130 * 8; ++i) {
    const float v = static_cast<float>((i * 13) % 29 - 14) / 16.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    for (int b = 0; b < 4; ++b) forms_data.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
  }
  for (int i = 0; i < 8; ++i) forms_data.insert(forms_data.end(), {0x00, 0x3C});
  const Bytes forms = pack(R"({"model.embed_tokens.weight":{"dtype":"BF16","shape":[70,8],"data_offsets":[0,1120]},)"
                           R"("model.layers.0.mlp.gate_proj.weight":{"dtype":"F32","shape":[130,8],"data_offsets":[1120,5280]},)"
                           R"("model.norm.weight":{"dtype":"F16","shape":[8],"data_offsets":[5280,5296]}})",
                           forms_data);
  std::vector<std::pair<std::string, Bytes>> streamed = {{"forms", forms}};
  if (DIR* dir = opendir(st_dir.c_str())) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] != '.') streamed.emplace_back(e->d_name, read_all(st_dir + e->d_name));
    closedir(dir);
  }
  for (const auto& [name, bytes] : streamed)
    for (std::uint8_t mode : {0, 1, 2, 3 | (5 << 2)}) {
      Bytes b{mode};
      b.insert(b.end(), bytes.begin(), bytes.end());
      write_all(sc_dir + std::to_string(mode) + "-" + name, b);
    }
  written += gguf_seeds(root + "/../gguf", corpus + "/gguf/");
  std::printf("make_seeds: %d fixture seeds from %zu cases, plus edge cases, in %s\n", written, cases.size(),
              corpus.c_str());
  return 0;
}
