// Restricted unpickler (see pickle.h).
//
// A stack machine over the opcodes a torch.save'd state dict uses (protocols 2–4):
//   PROTO FRAME STOP MARK · EMPTY_DICT EMPTY_LIST EMPTY_TUPLE TUPLE TUPLE1-3 · BININT BININT1
//   BININT2 LONG1 BINFLOAT NEWTRUE NEWFALSE NONE · BINUNICODE SHORT_BINUNICODE · BINPUT LONG_BINPUT
//   MEMOIZE BINGET LONG_BINGET · GLOBAL STACK_GLOBAL REDUCE BUILD BINPERSID · SETITEM SETITEMS
//   APPEND APPENDS.
// Globals are resolved against an allow-list, never imported:
//   collections.OrderedDict          REDUCE with () → an empty dict; BUILD on it ignores the state
//                                    (_metadata: per-module versions)
//   torch._utils._rebuild_tensor_v2  REDUCE with (storage, offset, size, stride, requires_grad,
//                                    backward_hooks[, metadata]) → a tensor view of the storage
//   torch._utils._rebuild_parameter  REDUCE with (tensor, requires_grad, backward_hooks) → the tensor
//   torch.{Float,Half,BFloat16,Long,Int}Storage  the storage types of persistent ids; the other
//                                    torch.*Storage names are refused as unsupported dtypes
// Anything else — another global (os.system, builtins.eval, posix.system …), REDUCE of anything but
// the two rebuild functions and OrderedDict, an unknown opcode — raises relpos::Error naming it.
// Values live in an arena and refer to each other by index (no ownership cycles, no recursion);
// the stack, the memo and the arena are bounded, so memory stays linear in the input.
#include "io/pickle.h"

#include <cstring>
#include <limits>
#include <map>

#include "io/dtype_convert.h"
#include "relpos/error.h"

namespace relpos::io {
namespace {

enum class Kind { None, Bool, Int, Float, Str, Tuple, List, Dict, Global, Storage, Tensor };
enum class Global { OrderedDict, RebuildTensor, RebuildParameter, Storage };

struct Value {
  Kind kind = Kind::None;
  std::int64_t i = 0;              // Bool, Int; Global: enum; Storage: storage index; Tensor: tensor index
  DType dtype = DType::F32;        // Global::Storage
  std::string s;                  // Str; Global: its qualified name
  std::vector<std::uint32_t> items;  // Tuple, List; Dict: key, value, key, value …
};

constexpr std::size_t kMaxStack = 1u << 20, kMaxMemo = 1u << 20, kMaxValues = 1u << 22, kMaxDims = 16;

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Global: return "global";
    case Kind::Storage: return "storage";
    case Kind::Tensor: return "tensor";
  }
  return "?";
}

const char* opcode_name(std::uint8_t op) {
  switch (op) {
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'p': return "PUT";
    case 'g': return "GET";
    case '0': return "POP";
    case '1': return "POP_MARK";
    case '2': return "DUP";
    case 'l': return "LIST";
    case 'd': return "DICT";
    case 'F': return "FLOAT";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x8b: return "LONG4";
    case 0x8d: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    default: return "unknown";
  }
}

class Unpickler {
 public:
  Unpickler(const std::uint8_t* data, std::size_t size, const std::string& where) : p_(data), n_(size), where_(where) {}

  StateDict run() {
    for (;;) {
      const std::size_t op_at = at_;
      const std::uint8_t op = byte();
      switch (op) {
        case 0x80: byte(); break;                 // PROTO
        case 0x95: bytes(8); break;               // FRAME (length only; frames are not separate)
        case '.': return finish();                // STOP
        case '(': marks_.push_back(stack_.size()); check_stack(); break;  // MARK
        case '}': push(make(Kind::Dict)); break;  // EMPTY_DICT
        case ']': push(make(Kind::List)); break;  // EMPTY_LIST
        case ')': push(make(Kind::Tuple)); break; // EMPTY_TUPLE
        case 't': push(tuple(pop_mark())); break;   // TUPLE
        case 0x85: push(tuple(pop_n(1))); break;    // TUPLE1
        case 0x86: push(tuple(pop_n(2))); break;    // TUPLE2
        case 0x87: push(tuple(pop_n(3))); break;    // TUPLE3
        case 'J': push(integer(static_cast<std::int32_t>(load_u32(bytes(4))))); break;  // BININT
        case 'K': push(integer(byte())); break;                                        // BININT1
        case 'M': push(integer(load_u16(bytes(2)))); break;                            // BININT2
        case 0x8a: push(integer(long1())); break;                                      // LONG1
        case 'G': {  // BINFLOAT: a float is never part of a tensor description; kept as an opaque value
          bytes(8);
          push(make(Kind::Float));
          break;
        }
        case 0x88: push(boolean(true)); break;   // NEWTRUE
        case 0x89: push(boolean(false)); break;  // NEWFALSE
        case 'N': push(make(Kind::None)); break; // NONE
        case 'X': push(string(load_u32(bytes(4)))); break;  // BINUNICODE
        case 0x8c: push(string(byte())); break;             // SHORT_BINUNICODE
        case 'q': put(byte()); break;                       // BINPUT
        case 'r': put(load_u32(bytes(4))); break;           // LONG_BINPUT
        case 0x94: put(static_cast<std::uint32_t>(memo_.size())); break;  // MEMOIZE
        case 'h': push(get(byte())); break;                  // BINGET
        case 'j': push(get(load_u32(bytes(4)))); break;      // LONG_BINGET
        case 'c': {                                          // GLOBAL module\nname\n
          const std::string module = line(), name = line();
          push(global(module, name));
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          const std::uint32_t name = pop(), module = pop();
          if (v(module).kind != Kind::Str || v(name).kind != Kind::Str) fail("STACK_GLOBAL expects two strings");
          const std::string m = v(module).s, n = v(name).s;
          push(global(m, n));
          break;
        }
        case 'R': {  // REDUCE
          const std::uint32_t args = pop(), callable = pop();
          push(reduce(callable, args));
          break;
        }
        case 'b': {  // BUILD: only the OrderedDict's attribute state, which is ignored
          pop();
          const std::uint32_t target = top();
          if (v(target).kind != Kind::Dict) fail(std::string("BUILD on a ") + kind_name(v(target).kind) + " is not allowed");
          break;
        }
        case 'Q': push(persistent(pop())); break;  // BINPERSID
        case 's': {                                // SETITEM
          const std::uint32_t value = pop(), key = pop();
          add_items(top(), {key, value}, Kind::Dict, "SETITEM");
          break;
        }
        case 'u': {  // SETITEMS
          std::vector<std::uint32_t> kv = pop_mark();
          if (kv.size() % 2) fail("SETITEMS with an odd number of items");
          add_items(top(), kv, Kind::Dict, "SETITEMS");
          break;
        }
        case 'a': {  // APPEND
          const std::uint32_t value = pop();
          add_items(top(), {value}, Kind::List, "APPEND");
          break;
        }
        case 'e': {  // APPENDS
          std::vector<std::uint32_t> items = pop_mark();
          add_items(top(), items, Kind::List, "APPENDS");
          break;
        }
        default: {
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", op);
          fail(std::string("unsupported pickle opcode ") + hex + " (" + opcode_name(op) + ") at byte " + std::to_string(op_at) +
               "; a state dict needs only the opcodes of torch.save");
        }
      }
    }
  }

 private:
  [[noreturn]] void fail(const std::string& message) const { fail_value(where_ + ": " + message); }

  std::uint8_t byte() {
    if (at_ >= n_) fail("truncated pickle: ends at byte " + std::to_string(n_) + " before STOP");
    return p_[at_++];
  }
  const std::uint8_t* bytes(std::size_t k) {
    if (k > n_ - at_) fail("truncated pickle: ends at byte " + std::to_string(n_) + " before STOP");
    const std::uint8_t* b = p_ + at_;
    at_ += k;
    return b;
  }
  std::string line() {
    std::string out;
    for (;;) {
      const char c = static_cast<char>(byte());
      if (c == '\n') return out;
      if (out.size() > 256) fail("GLOBAL name longer than 256 bytes");
      out += c;
    }
  }
  std::int64_t long1() {
    const std::uint8_t k = byte();
    if (k > 8) fail("LONG1 integer of " + std::to_string(k) + " bytes does not fit 64 bits");
    const std::uint8_t* b = bytes(k);
    std::uint64_t u = 0;
    for (int j = k - 1; j >= 0; --j) u = (u << 8) | b[j];
    if (k > 0 && k < 8 && (b[k - 1] & 0x80)) u |= ~std::uint64_t{0} << (8 * k);  // sign-extend
    return static_cast<std::int64_t>(u);
  }

  const Value& v(std::uint32_t index) const { return values_[index]; }
  std::uint32_t make(Value value) {
    if (values_.size() >= kMaxValues) fail("more than " + std::to_string(kMaxValues) + " values");
    values_.push_back(std::move(value));
    return static_cast<std::uint32_t>(values_.size() - 1);
  }
  std::uint32_t make(Kind kind) {
    Value value;
    value.kind = kind;
    return make(std::move(value));
  }
  std::uint32_t integer(std::int64_t i) {
    Value value;
    value.kind = Kind::Int;
    value.i = i;
    return make(std::move(value));
  }
  std::uint32_t boolean(bool b) {
    Value value;
    value.kind = Kind::Bool;
    value.i = b;
    return make(std::move(value));
  }
  std::uint32_t string(std::uint32_t length) {
    Value value;
    value.kind = Kind::Str;
    const std::uint8_t* b = bytes(length);
    value.s.assign(reinterpret_cast<const char*>(b), length);
    return make(std::move(value));
  }
  std::uint32_t tuple(std::vector<std::uint32_t> items) {
    Value value;
    value.kind = Kind::Tuple;
    value.items = std::move(items);
    return make(std::move(value));
  }

  void check_stack() {
    if (stack_.size() + marks_.size() > kMaxStack) fail("pickle stack deeper than " + std::to_string(kMaxStack));
  }
  void push(std::uint32_t value) {
    stack_.push_back(value);
    check_stack();
  }
  std::uint32_t pop() {
    if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) fail("pickle stack underflow at byte " + std::to_string(at_));
    const std::uint32_t value = stack_.back();
    stack_.pop_back();
    return value;
  }
  std::uint32_t top() const {
    if (stack_.empty() || (!marks_.empty() && marks_.back() == stack_.size())) fail("pickle stack underflow at byte " + std::to_string(at_));
    return stack_.back();
  }
  std::vector<std::uint32_t> pop_n(std::size_t k) {
    std::vector<std::uint32_t> out(k);
    for (std::size_t j = k; j-- > 0;) out[j] = pop();
    return out;
  }
  std::vector<std::uint32_t> pop_mark() {
    if (marks_.empty()) fail("pickle MARK missing at byte " + std::to_string(at_));
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<std::uint32_t> out(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return out;
  }
  // The memo: a vector indexed by memo number (torch.save numbers entries 0, 1, 2 …), bounded.
  void put(std::uint32_t index) {
    if (index >= kMaxMemo) fail("pickle memo index " + std::to_string(index) + " beyond " + std::to_string(kMaxMemo));
    if (index >= memo_.size()) memo_.resize(index + 1, kUnset);
    memo_[index] = top();
  }
  std::uint32_t get(std::uint32_t index) {
    if (index >= memo_.size() || memo_[index] == kUnset)
      fail("pickle memo entry " + std::to_string(index) + " used before it was stored");
    return memo_[index];
  }

  void add_items(std::uint32_t target, const std::vector<std::uint32_t>& items, Kind kind, const char* op) {
    if (values_[target].kind != kind)
      fail(std::string(op) + " on a " + kind_name(values_[target].kind) + " (expected a " + kind_name(kind) + ")");
    auto& list = values_[target].items;
    if (list.size() + items.size() > kMaxValues) fail("container larger than " + std::to_string(kMaxValues));
    list.insert(list.end(), items.begin(), items.end());
  }

  std::uint32_t global(const std::string& module, const std::string& name) {
    const std::string q = module + "." + name;
    Value value;
    value.kind = Kind::Global;
    value.s = q;
    if (q == "collections.OrderedDict") {
      value.i = static_cast<int>(Global::OrderedDict);
    } else if (q == "torch._utils._rebuild_tensor_v2") {
      value.i = static_cast<int>(Global::RebuildTensor);
    } else if (q == "torch._utils._rebuild_parameter") {
      value.i = static_cast<int>(Global::RebuildParameter);
    } else if (module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0) {
      const std::string type = name.substr(0, name.size() - 7);
      DType dtype;
      if (type == "Float") dtype = DType::F32;
      else if (type == "Half") dtype = DType::F16;
      else if (type == "BFloat16") dtype = DType::BF16;
      else if (type == "Long") dtype = DType::I64;
      else if (type == "Int") dtype = DType::I32;
      else
        fail("tensor storage type '" + q + "' is not supported (supported: torch.FloatStorage, HalfStorage, " +
             "BFloat16Storage, LongStorage, IntStorage — F32, F16, BF16, I64, I32)");
      value.i = static_cast<int>(Global::Storage);
      value.dtype = dtype;
    } else {
      fail("refused global '" + q + "': a checkpoint may only name collections.OrderedDict, " +
           "torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and torch.*Storage types " +
           "(relpos never imports or runs code from a pickle)");
    }
    return make(std::move(value));
  }

  std::int64_t int_arg(std::uint32_t index, const char* what) const {
    if (v(index).kind != Kind::Int && v(index).kind != Kind::Bool) fail(std::string(what) + " must be an int, got " + kind_name(v(index).kind));
    return v(index).i;
  }
  std::vector<std::int64_t> int_tuple(std::uint32_t index, const char* what) const {
    if (v(index).kind != Kind::Tuple) fail(std::string(what) + " must be a tuple of ints, got " + kind_name(v(index).kind));
    if (v(index).items.size() > kMaxDims) fail(std::string(what) + " has more than " + std::to_string(kMaxDims) + " dimensions");
    std::vector<std::int64_t> out;
    for (auto item : v(index).items) {
      const std::int64_t x = int_arg(item, what);
      if (x < 0) fail(std::string(what) + " entry " + std::to_string(x) + " is negative (not supported)");
      out.push_back(x);
    }
    return out;
  }

  std::uint32_t reduce(std::uint32_t callable, std::uint32_t args) {
    if (v(callable).kind != Kind::Global)
      fail(std::string("REDUCE of a ") + kind_name(v(callable).kind) + " is not allowed (only rebuild functions and OrderedDict)");
    if (v(args).kind != Kind::Tuple) fail("REDUCE arguments must be a tuple, got " + std::string(kind_name(v(args).kind)));
    const std::vector<std::uint32_t> a = v(args).items;
    switch (static_cast<Global>(v(callable).i)) {
      case Global::OrderedDict:
        if (!a.empty()) fail("collections.OrderedDict called with arguments (only OrderedDict() is allowed)");
        return make(Kind::Dict);
      case Global::RebuildParameter:
        if (a.size() != 3 || v(a[0]).kind != Kind::Tensor)
          fail("torch._utils._rebuild_parameter expects (tensor, requires_grad, backward_hooks)");
        return a[0];
      case Global::RebuildTensor: {
        if (a.size() != 6 && a.size() != 7)
          fail("torch._utils._rebuild_tensor_v2 expects 6 or 7 arguments, got " + std::to_string(a.size()));
        if (v(a[0]).kind != Kind::Storage)
          fail(std::string("torch._utils._rebuild_tensor_v2: first argument must be a storage (persistent id), got ") + kind_name(v(a[0]).kind));
        PickledTensor t;
        t.storage = static_cast<std::size_t>(v(a[0]).i);
        const std::int64_t offset = int_arg(a[1], "storage offset");
        if (offset < 0) fail("storage offset " + std::to_string(offset) + " is negative");
        t.offset = static_cast<std::uint64_t>(offset);
        t.shape = int_tuple(a[2], "tensor size");
        t.stride = int_tuple(a[3], "tensor stride");
        if (t.shape.size() != t.stride.size())
          fail("tensor size has " + std::to_string(t.shape.size()) + " dimensions but stride " + std::to_string(t.stride.size()));
        tensors_.push_back(std::move(t));
        Value value;
        value.kind = Kind::Tensor;
        value.i = static_cast<std::int64_t>(tensors_.size() - 1);
        return make(std::move(value));
      }
      case Global::Storage: break;
    }
    fail("REDUCE of '" + v(callable).s + "' is not allowed (only rebuild functions and OrderedDict)");
  }

  // ('storage', torch.<Type>Storage, key, location, numel) → the storage it names.
  std::uint32_t persistent(std::uint32_t pid) {
    const Value& t = v(pid);
    if (t.kind != Kind::Tuple || t.items.size() != 5 || v(t.items[0]).kind != Kind::Str || v(t.items[0]).s != "storage")
      fail("bad persistent id: expected ('storage', storage type, key, location, numel)");
    const Value& type = v(t.items[1]);
    if (type.kind != Kind::Global || static_cast<Global>(type.i) != Global::Storage)
      fail("bad persistent id: the storage type must be a torch.*Storage global, got " + std::string(type.kind == Kind::Global ? type.s : kind_name(type.kind)));
    if (v(t.items[2]).kind != Kind::Str) fail("bad persistent id: the storage key must be a string");
    if (v(t.items[3]).kind != Kind::Str) fail("bad persistent id: the storage location must be a string");
    const std::int64_t numel = int_arg(t.items[4], "bad persistent id: numel");
    if (numel < 0) fail("bad persistent id: numel " + std::to_string(numel) + " is negative");
    const std::string& key = v(t.items[2]).s;
    auto it = storage_index_.find(key);
    std::size_t index;
    if (it != storage_index_.end()) {
      index = it->second;
      const PickledStorage& s = storages_[index];
      if (s.dtype != type.dtype || s.numel != static_cast<std::uint64_t>(numel))
        fail("bad persistent id: storage '" + key + "' named twice with different types or sizes");
    } else {
      index = storages_.size();
      storages_.push_back({key, type.dtype, static_cast<std::uint64_t>(numel)});
      storage_index_[key] = index;
    }
    Value value;
    value.kind = Kind::Storage;
    value.i = static_cast<std::int64_t>(index);
    return make(std::move(value));
  }

  StateDict finish() {
    const std::uint32_t root = top();
    if (v(root).kind != Kind::Dict)
      fail(std::string("the checkpoint holds a ") + kind_name(v(root).kind) + ", not a state dict (a dict of name → tensor)");
    StateDict out;
    out.storages = storages_;
    std::map<std::string, std::size_t> seen;
    const auto& kv = v(root).items;
    for (std::size_t j = 0; j + 1 < kv.size(); j += 2) {
      if (v(kv[j]).kind != Kind::Str) fail(std::string("state dict key is a ") + kind_name(v(kv[j]).kind) + ", not a string");
      const std::string& name = v(kv[j]).s;
      const Value& value = v(kv[j + 1]);
      if (value.kind != Kind::Tensor)
        fail("state dict entry '" + name + "' is a " + kind_name(value.kind) + ", not a tensor (nested checkpoints are not supported)");
      PickledTensor t = tensors_[static_cast<std::size_t>(value.i)];
      t.name = name;
      auto it = seen.find(name);
      if (it != seen.end()) {
        out.tensors[it->second] = std::move(t);  // a repeated key replaces the earlier value, as in Python
      } else {
        seen[name] = out.tensors.size();
        out.tensors.push_back(std::move(t));
      }
    }
    return out;
  }

  const std::uint8_t* p_;
  std::size_t n_;
  std::size_t at_ = 0;
  const std::string& where_;
  std::vector<Value> values_;
  std::vector<std::uint32_t> stack_;
  std::vector<std::size_t> marks_;
  static constexpr std::uint32_t kUnset = 0xFFFFFFFFu;
  std::vector<std::uint32_t> memo_;
  std::vector<PickledTensor> tensors_;
  std::vector<PickledStorage> storages_;
  std::map<std::string, std::size_t> storage_index_;
};

}  // namespace

StateDict unpickle_state_dict(const std::uint8_t* data, std::size_t size, const std::string& where) {
  return Unpickler(data, size, where).run();
}

}  // namespace relpos::io
