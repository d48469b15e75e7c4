// .npy load and save: round trips, byte order, Fortran order, and the errors a person meets.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "interp/npy.hpp"
#include "tests/support.hpp"

using namespace shlo;

namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "shlo_npy_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// A .npy file written by hand, byte by byte, as NumPy does (header padded to 64 bytes).
void write_raw(const std::string& path, const std::string& dict, const std::string& payload, char version = 1) {
  std::string header = dict;
  const std::size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY", 6);
  out.put(version);
  out.put(0);
  if (version == 1) {
    out.put(static_cast<char>(header.size() & 0xFF));
    out.put(static_cast<char>(header.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i) out.put(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  }
  out << header << payload;
}

}  // namespace

TEST_CASE("npy round trips for f32, f64, bool and i64", "[npy]") {
  const std::string p = temp_path("rt.npy");
  NpyArray f32{{2, 3}, std::vector<float>{1, 2, 3, 4, 5, -0.5f}};
  write_npy(p, f32);
  NpyArray back = read_npy(p, NpyDtype::F32, {2, 3});
  CHECK(std::get<std::vector<float>>(back.data) == std::get<std::vector<float>>(f32.data));

  write_npy(p, NpyArray{{}, std::vector<double>{0.1}});
  CHECK(std::get<std::vector<double>>(read_npy(p, NpyDtype::F64, {}).data) == std::vector<double>{0.1});

  write_npy(p, NpyArray{{4}, std::vector<std::uint8_t>{1, 0, 0, 1}});
  CHECK(std::get<std::vector<std::uint8_t>>(read_npy(p, NpyDtype::Bool, {4}).data) ==
        std::vector<std::uint8_t>{1, 0, 0, 1});

  write_npy(p, NpyArray{{1, 2}, std::vector<std::int64_t>{-7, 1LL << 40}});
  CHECK(std::get<std::vector<std::int64_t>>(read_npy(p, NpyDtype::I64, {1, 2}).data) ==
        std::vector<std::int64_t>{-7, 1LL << 40});

  // The header is what NumPy itself writes (a 64-byte aligned dict).
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  CHECK(bytes.substr(10, 60).find("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }") == 0);
  CHECK((bytes.size() - 16) % 64 == 0);
}

TEST_CASE("npy reads big-endian, Fortran order and version 2 files", "[npy]") {
  const std::string p = temp_path("fortran.npy");
  // A 2x3 f4 array [[1,2,3],[4,5,6]] stored column-major: 1 4 2 5 3 6.
  std::string payload;
  for (float v : {1.f, 4.f, 2.f, 5.f, 3.f, 6.f}) payload.append(reinterpret_cast<const char*>(&v), 4);
  write_raw(p, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", payload, 2);
  CHECK(std::get<std::vector<float>>(read_npy(p).data) == std::vector<float>{1, 2, 3, 4, 5, 6});

  std::string big;
  const double v = 1.5;
  const char* b = reinterpret_cast<const char*>(&v);
  for (int i = 7; i >= 0; --i) big.push_back(b[i]);
  write_raw(p, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", big);
  CHECK(std::get<std::vector<double>>(read_npy(p).data) == std::vector<double>{1.5});
}

TEST_CASE("npy errors name the file and what was expected", "[npy]") {
  const std::string p = temp_path("bad.npy");
  {
    std::ofstream(p) << "x,y\n1,2\n";
  }
  CHECK_THROWS_WITH(read_npy(p), Catch::Contains(p) && Catch::Contains("not a .npy file"));
  CHECK_THROWS_WITH(read_npy(temp_path("missing.npy")), Catch::Contains("cannot open"));

  write_npy(p, NpyArray{{2}, std::vector<double>{1, 2}});
  CHECK_THROWS_WITH(read_npy(p, NpyDtype::F32, {2}), Catch::Contains("dtype is f64, expected f32"));
  CHECK_THROWS_WITH(read_npy(p, NpyDtype::F64, {2, 1}), Catch::Contains("shape is 2, expected 2x1"));

  write_raw(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000,), }", "abcd");
  CHECK_THROWS_WITH(read_npy(p), Catch::Contains("truncated"));
  write_raw(p, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", "abcdefgh");  // complex: no element type holds it
  CHECK_THROWS_WITH(read_npy(p), Catch::Contains("unsupported dtype '<c8'"));
  write_raw(p, "{'descr': '<f4', 'shape': (1,), }", "abcd");
  CHECK_THROWS_WITH(read_npy(p), Catch::Contains("fortran_order"));
  write_raw(p, "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", "\x05");
  CHECK_THROWS_WITH(read_npy(p), Catch::Contains("0 or 1"));
  // Control: the same header with a valid payload reads fine.
  write_raw(p, "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", std::string(1, '\x01'));
  CHECK(std::get<std::vector<std::uint8_t>>(read_npy(p).data) == std::vector<std::uint8_t>{1});
}

TEST_CASE("tensor shapes", "[tensor]") {
  CHECK(num_elements({}) == 1);
  CHECK(num_elements({128, 10}) == 1280);
  CHECK(shape_to_string({128, 10}) == "128x10");
  CHECK(shape_to_string({}) == "scalar");
  CHECK(row_major_strides({2, 3, 4}) == std::vector<std::int64_t>{12, 4, 1});
  Tensor<int> t({2, 3}, std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(t.at({1, 2}) == 5);
  CHECK_THROWS_AS(t.at({2, 0}), std::out_of_range);
  CHECK_THROWS_AS(Tensor<int>({2, 2}, std::vector<int>{1}), std::invalid_argument);
  CHECK_THROWS_AS(num_elements({-1}), std::invalid_argument);
}
