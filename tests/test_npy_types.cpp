// Integer and 16-bit float tensors at the program boundary (issue 15): .npy files of every
// dtype the element types need, read into and written from a program with integer arguments
// and results; the refusals (another width, another signedness) name the file, the argument
// and both types; drawn integer inputs. Files are built byte by byte here, as NumPy writes them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "interp/program_inputs.hpp"
#include "tests/typed_support.hpp"

using namespace shlo;
using namespace shlo::test;

namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "shlo_npy_types_test" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A .npy file (format 1.0) with header dict `dict` and data `payload`, as NumPy writes it.
void write_raw(const std::filesystem::path& path, const std::string& dict, const std::string& payload) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(header.size() & 0xFF));
  out.put(static_cast<char>(header.size() >> 8));
  out << header << payload;
}

std::string bytes(std::initializer_list<int> values) {
  std::string s;
  for (int b : values) s.push_back(static_cast<char>(b));
  return s;
}

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The data of a .npy file we wrote (format 1.0: 10 bytes, then the header up to '\n').
std::string payload_of(const std::string& file) { return file.substr(file.find('\n') + 1); }

const char* kProgram = R"(module @m {
  func.func @main(%a: tensor<3xi32>, %b: tensor<2xui8>) -> (tensor<3xi32>, tensor<2xui8>) {
    %sq = stablehlo.multiply %a, %a : tensor<3xi32>
    %twice = stablehlo.add %b, %b : tensor<2xui8>
    return %sq, %twice : tensor<3xi32>, tensor<2xui8>
  }
}
)";

}  // namespace

TEST_CASE("a program with i32 and ui8 arguments runs from .npy files and writes its outputs in their types", "[npy][npy_types]") {
  const Module m = parse_module(kProgram, "p.mlir");
  const auto dir = fresh_dir("run");
  // a = [-2, 70000, 5] as <i4; b = [200, 7] as |u1.
  write_raw(dir / "a.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
            bytes({0xFE, 0xFF, 0xFF, 0xFF, 0x70, 0x11, 0x01, 0x00, 5, 0, 0, 0}));
  write_raw(dir / "b.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", bytes({200, 7}));
  const InputArrays in = read_inputs(m.function(), dir.string(), 1);
  const auto result = run_program(m, ExactDomain{}, npy_values(ExactDomain{}, m.function(), in), RunOptions{});
  const auto& sq = std::get<IntTensor>(result.outputs.at(0).at(0));
  const auto& twice = std::get<IntTensor>(result.outputs.at(0).at(1));
  // 70000^2 = 4900000000 wraps to 4900000000 - 2^32 = 605032704; 200 + 200 = 400 wraps to 144.
  CHECK(integer_to_string(sq.data.at(0), true) == "4");
  CHECK(integer_to_string(sq.data.at(1), true) == "605032704");
  CHECK(integer_to_string(sq.data.at(2), true) == "25");
  CHECK(twice.data == std::vector<std::uint64_t>{144, 14});

  // Written in their element types: <i4 and |u1, the bytes as NumPy would hold them.
  write_npy((dir / "sq.npy").string(), npy_of_integers(sq.shape, sq.data, ElementType::I32));
  write_npy((dir / "twice.npy").string(), npy_of_integers(twice.shape, twice.data, ElementType::UI8));
  const std::string sq_file = file_bytes(dir / "sq.npy"), twice_file = file_bytes(dir / "twice.npy");
  CHECK(sq_file.find("'descr': '<i4'") != std::string::npos);
  CHECK(payload_of(sq_file) == bytes({4, 0, 0, 0, 0x00, 0x11, 0x10, 0x24, 25, 0, 0, 0}));  // 605032704 = 0x24101100
  CHECK(twice_file.find("'descr': '|u1'") != std::string::npos);
  CHECK(payload_of(twice_file) == bytes({144, 14}));
  // And read back to the same values.
  CHECK(npy_integer_bits(read_npy((dir / "sq.npy").string())) == sq.data);
  CHECK(read_npy((dir / "twice.npy").string()).dtype() == NpyDtype::U8);
}

TEST_CASE("an integer .npy of another width or signedness is refused, naming file, argument and types", "[npy][npy_types]") {
  const Module m = parse_module(kProgram, "p.mlir");
  const auto dir = fresh_dir("refuse");
  write_raw(dir / "b.npy", "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", bytes({200, 7}));
  // Control: the right dtypes are read.
  write_raw(dir / "a.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", std::string(12, '\0'));
  CHECK_NOTHROW(read_inputs(m.function(), dir.string(), 1));
  // Width: an i64 file for the i32 argument.
  write_raw(dir / "a.npy", "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", std::string(24, '\0'));
  CHECK_THROWS_WITH(read_inputs(m.function(), dir.string(), 1),
                    Catch::Contains((dir / "a.npy").string() + ": dtype is i64, %a is tensor<3xi32> and needs i32") &&
                        Catch::Contains("no conversion between integer types"));
  // Signedness: an i8 file for the ui8 argument.
  write_raw(dir / "a.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", std::string(12, '\0'));
  write_raw(dir / "b.npy", "{'descr': '|i1', 'fortran_order': False, 'shape': (2,), }", bytes({1, 2}));
  CHECK_THROWS_WITH(read_inputs(m.function(), dir.string(), 1),
                    Catch::Contains((dir / "b.npy").string() + ": dtype is i8, %b is tensor<2xui8> and needs u8"));
  // A float file for an integer argument.
  write_raw(dir / "b.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'));
  CHECK_THROWS_WITH(read_inputs(m.function(), dir.string(), 1), Catch::Contains("dtype is f32, %b is tensor<2xui8> and needs u8"));
}

TEST_CASE(".npy round trips for every integer dtype, f16 and bf16 (V2)", "[npy][npy_types]") {
  const auto dir = fresh_dir("dtypes");
  // -1 and 2 in each integer type (unsigned: the same 64-bit patterns, truncated, read back zero-extended).
  const std::vector<std::pair<ElementType, const char*>> types{
      {ElementType::I8, "'|i1'"},  {ElementType::I16, "'<i2'"},  {ElementType::I32, "'<i4'"},  {ElementType::I64, "'<i8'"},
      {ElementType::UI8, "'|u1'"}, {ElementType::UI16, "'<u2'"}, {ElementType::UI32, "'<u4'"}, {ElementType::UI64, "'<u8'"}};
  for (const auto& [type, descr] : types) {
    const auto path = (dir / (std::string(to_string(type)) + ".npy")).string();
    write_npy(path, npy_of_integers({2}, {~std::uint64_t{0}, 2}, type));
    CHECK(file_bytes(path).find(std::string("'descr': ") + descr) != std::string::npos);
    const NpyArray back = read_npy(path);
    CHECK(back.dtype() == npy_dtype_of(type));
    const std::uint64_t minus_one = is_signed_integer(type) ? ~std::uint64_t{0} : ~std::uint64_t{0} >> (64 - bit_width(type));
    CHECK(npy_integer_bits(back) == std::vector<std::uint64_t>{minus_one, 2});
  }
  // Big-endian >i2: 0xFFFE is -2.
  write_raw(dir / "big.npy", "{'descr': '>i2', 'fortran_order': False, 'shape': (1,), }", bytes({0xFF, 0xFE}));
  CHECK(npy_integer_bits(read_npy((dir / "big.npy").string())) == std::vector<std::uint64_t>{~std::uint64_t{1}});
  // f16: 0x3C00 = 1, 0xC000 = -2, 0x0001 = 2^-24 (the least subnormal), 0x7BFF = 65504.
  write_raw(dir / "h.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
            bytes({0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00, 0xFF, 0x7B}));
  const NpyArray h = read_npy((dir / "h.npy").string());
  CHECK(h.dtype() == NpyDtype::F16);
  CHECK(npy_float_values(h) == std::vector<double>{1, -2, 0x1p-24, 65504});
  // bf16 as ml_dtypes saves it, |V2: 0x3F80 = 1, 0xC0A0 = -5.
  write_raw(dir / "bf.npy", "{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }", bytes({0x80, 0x3F, 0xA0, 0xC0}));
  const NpyArray bf = read_npy((dir / "bf.npy").string());
  CHECK(bf.dtype() == NpyDtype::BF16);
  CHECK(npy_float_values(bf) == std::vector<double>{1, -5});
  write_npy((dir / "bf2.npy").string(), bf);
  CHECK(file_bytes(dir / "bf2.npy").find("'descr': '|V2'") != std::string::npos);
  // Control: a dtype outside the list is refused by name.
  write_raw(dir / "c.npy", "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0'));
  CHECK_THROWS_WITH(read_npy((dir / "c.npy").string()), Catch::Contains("unsupported dtype '<c8'"));
}

TEST_CASE("f16 and bf16 files feed f16 and bf16 arguments only", "[npy][npy_types]") {
  const TensorType f16{{2}, ElementType::F16}, bf16{{2}, ElementType::BF16}, f32{{2}, ElementType::F32};
  const NpyArray halves{{2}, std::vector<NpyF16Bits>{NpyF16Bits{0x3C00}, NpyF16Bits{0x3555}}};  // 1, 0.333251953125
  const auto v = npy_value(ExactDomain{}, halves, f16, "h.npy");
  CHECK(ExactDomain{}.to_string(std::get<Tensor<ExactDomain::Scalar>>(v).data.at(1)) == "1365/4096");
  const NpyArray brains{{2}, std::vector<NpyBF16Bits>{NpyBF16Bits{0x3F80}, NpyBF16Bits{0x3EAB}}};  // 1, 0.333984375
  CHECK(ExactDomain{}.to_string(std::get<Tensor<ExactDomain::Scalar>>(npy_value(ExactDomain{}, brains, bf16, "b.npy")).data.at(1)) ==
        "171/512");
  CHECK_THROWS_WITH(npy_value(ExactDomain{}, halves, f32, "h.npy"), Catch::Contains("h.npy: dtype is f16, expected f32"));
  CHECK_THROWS_WITH(npy_value(ExactDomain{}, brains, f16, "b.npy"), Catch::Contains("b.npy: dtype is bf16, expected f16"));
}

TEST_CASE("drawn integer inputs are uniform integers in [ceil(LO), floor(HI)] within the type", "[npy][npy_types]") {
  const TensorType i32{{600}, ElementType::I32}, ui8{{600}, ElementType::UI8};
  auto drawn = [](const NpyArray& a, bool is_signed) {
    std::set<long long> seen;
    for (auto b : npy_integer_bits(a)) seen.insert(is_signed ? static_cast<long long>(static_cast<std::int64_t>(b)) : static_cast<long long>(b));
    return seen;
  };
  const NpyArray a = random_input(i32, 7, 0, 0, -3.5, 2.5);
  CHECK(a.dtype() == NpyDtype::I32);
  CHECK(drawn(a, true) == std::set<long long>{-3, -2, -1, 0, 1, 2});
  // ui8: the range meets the type's values at 0 .. 2.
  CHECK(drawn(random_input(ui8, 7, 0, 0, -3.5, 2.5), false) == std::set<long long>{0, 1, 2});
  // Deterministic in (seed, replica, argument), and another seed draws another array.
  CHECK(random_input(i32, 7, 0, 0, -3.5, 2.5).data == a.data);
  CHECK(random_input(i32, 8, 0, 0, -3.5, 2.5).data != a.data);
  // No integer in the range: refused.
  CHECK_THROWS_WITH(random_input(i32, 7, 0, 0, 0.25, 0.75), Catch::Contains("holds no integer of i32"));
  CHECK_THROWS_WITH(random_input(ui8, 7, 0, 0, -9, -1.5), Catch::Contains("holds no integer of ui8"));
}
