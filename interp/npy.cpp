#include "interp/npy.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace shlo {

const char* to_string(NpyDtype d) {
  switch (d) {
    case NpyDtype::F32: return "f32";
    case NpyDtype::F64: return "f64";
    case NpyDtype::Bool: return "bool";
    case NpyDtype::I64: return "i64";
    case NpyDtype::I8: return "i8";
    case NpyDtype::I16: return "i16";
    case NpyDtype::I32: return "i32";
    case NpyDtype::U8: return "u8";
    case NpyDtype::U16: return "u16";
    case NpyDtype::U32: return "u32";
    case NpyDtype::U64: return "u64";
    case NpyDtype::F16: return "f16";
    case NpyDtype::BF16: return "bf16";
  }
  return "?";
}

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMaxHeader = 1 << 20;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw NpyError(path + ": " + what);
}

// The value of 'key' in the header dict, as raw text up to the matching delimiter.
std::string dict_value(const std::string& path, const std::string& header, const std::string& key) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) fail(path, "the .npy header has no '" + key + "' entry");
  auto colon = header.find(':', k);
  if (colon == std::string::npos) fail(path, "malformed .npy header near '" + key + "'");
  std::size_t i = colon + 1;
  while (i < header.size() && header[i] == ' ') ++i;
  if (i >= header.size()) fail(path, "malformed .npy header near '" + key + "'");
  if (header[i] == '(') {
    auto close = header.find(')', i);
    if (close == std::string::npos) fail(path, "malformed shape in .npy header");
    return header.substr(i, close - i + 1);
  }
  if (header[i] == '\'') {
    auto close = header.find('\'', i + 1);
    if (close == std::string::npos) fail(path, "malformed dtype in .npy header");
    return header.substr(i + 1, close - i - 1);
  }
  std::size_t end = i;
  while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
  return header.substr(i, end - i);
}

Shape parse_shape(const std::string& path, const std::string& text) {
  Shape shape;
  std::size_t i = 1;  // after '('
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size() || text[i] == ')') break;
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == start || i - start > 15) fail(path, "bad shape " + text + " in .npy header");
    shape.push_back(std::stoll(text.substr(start, i - start)));
  }
  return shape;
}

struct DtypeInfo {
  NpyDtype dtype;
  std::size_t size;
  bool big_endian;
};

// Each dtype's descr kind (after the byte-order character) and element size, in NpyDtype order.
struct DescrKind {
  const char* kind;
  NpyDtype dtype;
  std::size_t size;
};
constexpr DescrKind kKinds[] = {
    {"f4", NpyDtype::F32, 4}, {"f8", NpyDtype::F64, 8}, {"b1", NpyDtype::Bool, 1}, {"i8", NpyDtype::I64, 8},
    {"i1", NpyDtype::I8, 1},  {"i2", NpyDtype::I16, 2}, {"i4", NpyDtype::I32, 4},  {"u1", NpyDtype::U8, 1},
    {"u2", NpyDtype::U16, 2}, {"u4", NpyDtype::U32, 4}, {"u8", NpyDtype::U64, 8},  {"f2", NpyDtype::F16, 2},
    {"V2", NpyDtype::BF16, 2},
};

DtypeInfo parse_descr(const std::string& path, const std::string& descr) {
  if (descr.size() < 2) fail(path, "unsupported dtype '" + descr + "'");
  const char order = descr[0];
  const std::string kind = descr.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=')
    fail(path, "unsupported dtype '" + descr + "'");
  for (const auto& k : kKinds)
    if (kind == k.kind) return {k.dtype, k.size, order == '>' && k.size > 1 && k.dtype != NpyDtype::BF16};  // V2: raw bytes, little-endian
  fail(path, "unsupported dtype '" + descr +
                 "' (supported: f2 f4 f8, b1, i1 i2 i4 i8, u1 u2 u4 u8, and V2 read as bfloat16, in either byte order)");
}

template <class T>
std::vector<T> decode(const std::vector<char>& raw, bool big_endian) {
  std::vector<T> out(raw.size() / sizeof(T));
  if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());  // an empty vector's data() may be null
  if (big_endian && sizeof(T) > 1) {
    for (T& v : out) {
      auto* b = reinterpret_cast<unsigned char*>(&v);
      std::reverse(b, b + sizeof(T));
    }
  }
  return out;
}

// Fortran (column-major) order to row-major.
template <class T>
std::vector<T> to_row_major(const std::vector<T>& in, const Shape& shape) {
  std::vector<T> out(in.size());
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> idx(rank, 0);
  const auto rstrides = row_major_strides(shape);
  for (std::size_t f = 0; f < in.size(); ++f) {
    std::int64_t r = 0;
    for (std::size_t d = 0; d < rank; ++d) r += idx[d] * rstrides[d];
    out[static_cast<std::size_t>(r)] = in[f];
    for (std::size_t d = 0; d < rank; ++d) {  // first index fastest
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

NpyArray read_npy(const std::string& path) {
  // A FIFO or a device would be waited on, or read without end: only regular files hold arrays.
  struct stat file_info {};
  if (::stat(path.c_str(), &file_info) != 0) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  if (!S_ISREG(file_info.st_mode)) fail(path, "not a regular file (a FIFO, device or folder is not read)");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot open file: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::size_t>(in.tellg());
  in.seekg(0);
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 6) != 0) fail(path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::size_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::size_t>(b[3]) << 24);
  } else {
    fail(path, "unsupported .npy format version " + std::to_string(major));
  }
  if (!in || header_len > kMaxHeader) fail(path, "truncated or oversized .npy header");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (!in) fail(path, "truncated .npy header");

  const DtypeInfo info = parse_descr(path, dict_value(path, header, "descr"));
  const std::string fortran = dict_value(path, header, "fortran_order");
  if (fortran != "True" && fortran != "False") fail(path, "bad fortran_order '" + fortran + "'");
  NpyArray array;
  array.shape = parse_shape(path, dict_value(path, header, "shape"));
  std::int64_t count = 0;
  try {
    count = num_elements(array.shape);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  const std::size_t data_offset = static_cast<std::size_t>(in.tellg());
  // count * size can exceed 64 bits (a header shape of 2^30 x 2^30 x 4 in f32): compare by
  // division so that such a header fails the truncation check instead of wrapping to 0 bytes.
  const std::size_t held = file_size < data_offset ? 0 : file_size - data_offset;
  if (static_cast<std::uint64_t>(count) > held / info.size)
    fail(path, "truncated: the header promises " + std::to_string(count) + " elements of shape " +
                   shape_to_string(array.shape) + " (" + std::to_string(info.size) + " bytes each), the file holds " +
                   std::to_string(held) + " bytes of data");
  const std::size_t needed = static_cast<std::size_t>(count) * info.size;
  std::vector<char> raw(needed);
  in.read(raw.data(), static_cast<std::streamsize>(needed));
  if (!in) fail(path, "read error");

  auto finish = [&](auto values) {
    if (fortran == "True") values = to_row_major(values, array.shape);
    array.data = std::move(values);
  };
  switch (info.dtype) {
    case NpyDtype::F32: finish(decode<float>(raw, info.big_endian)); break;
    case NpyDtype::F64: finish(decode<double>(raw, info.big_endian)); break;
    case NpyDtype::Bool: {
      auto v = decode<std::uint8_t>(raw, false);
      for (auto& b : v)
        if (b > 1) fail(path, "bool array holds a byte other than 0 or 1");
      finish(std::move(v));
      break;
    }
    case NpyDtype::I64: finish(decode<std::int64_t>(raw, info.big_endian)); break;
    case NpyDtype::I8: finish(decode<std::int8_t>(raw, false)); break;
    case NpyDtype::I16: finish(decode<std::int16_t>(raw, info.big_endian)); break;
    case NpyDtype::I32: finish(decode<std::int32_t>(raw, info.big_endian)); break;
    case NpyDtype::U8: finish(decode<NpyU8>(raw, false)); break;
    case NpyDtype::U16: finish(decode<std::uint16_t>(raw, info.big_endian)); break;
    case NpyDtype::U32: finish(decode<std::uint32_t>(raw, info.big_endian)); break;
    case NpyDtype::U64: finish(decode<std::uint64_t>(raw, info.big_endian)); break;
    case NpyDtype::F16: finish(decode<NpyF16Bits>(raw, info.big_endian)); break;
    case NpyDtype::BF16: finish(decode<NpyBF16Bits>(raw, false)); break;
  }
  return array;
}

NpyArray read_npy(const std::string& path, NpyDtype expected_dtype, const Shape& expected_shape) {
  NpyArray a = read_npy(path);
  if (a.dtype() != expected_dtype)
    fail(path, std::string("dtype is ") + to_string(a.dtype()) + ", expected " + to_string(expected_dtype));
  if (a.shape != expected_shape)
    fail(path, "shape is " + shape_to_string(a.shape) + ", expected " + shape_to_string(expected_shape));
  return a;
}

void write_npy(const std::string& path, const NpyArray& array) {
  // The byte-order character: '|' where it does not apply (one byte, or V2's raw bytes).
  const DescrKind& kind = kKinds[array.data.index()];
  const char order = kind.size == 1 || kind.dtype == NpyDtype::BF16 ? '|' : '<';
  std::ostringstream dict;
  dict << "{'descr': '" << order << kind.kind << "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < array.shape.size(); ++i) dict << array.shape[i] << (array.shape.size() == 1 ? "," : (i + 1 < array.shape.size() ? ", " : ""));
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so that the data starts on a 64-byte boundary; end with '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(path, std::string("cannot write file: ") + std::strerror(errno));
    out.write(kMagic, 6);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                  static_cast<unsigned char>(header.size() >> 8)};
    out.write(reinterpret_cast<const char*>(len), 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    std::visit([&](const auto& v) {
      if (static_cast<std::int64_t>(v.size()) != num_elements(array.shape))
        fail(path, "array holds " + std::to_string(v.size()) + " elements, shape " +
                       shape_to_string(array.shape) + " needs " + std::to_string(num_elements(array.shape)));
      out.write(reinterpret_cast<const char*>(v.data()),
                static_cast<std::streamsize>(v.size() * sizeof(v[0])));
    }, array.data);
    if (!out) fail(path, "write error");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    fail(path, "cannot rename the temporary file into place: " + why);
  }
}

}  // namespace shlo
