// dataset/images: image_url data URLs — base64 as RFC 4648 writes it, synthetic PNGs that libpng
// reads back at the asked size, image files by extension, and --image's WxH.
#include "dataset/images.hpp"

#include <gtest/gtest.h>
#include <png.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "support/temp_dir.hpp"

namespace tokbench::dataset {
namespace {

namespace fs = std::filesystem;

std::string unbase64(std::string_view s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const int v = val(c);
    if (v < 0) break;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

TEST(Images, Base64IsRfc4648) {  // the RFC's own test vectors
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\x10", 3)), "/wAQ");
}

TEST(Images, SyntheticPngReadsBackAtItsSizeAndIsSeeded) {
  const std::string url = synthetic_png_url(40, 24, 7);
  ASSERT_EQ(url.rfind("data:image/png;base64,", 0), 0u);
  const std::string png = unbase64(url.substr(url.find(',') + 1));
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_memory(&image, png.data(), png.size())) << image.message;
  EXPECT_EQ(image.width, 40u);
  EXPECT_EQ(image.height, 24u);
  png_image_free(&image);
  EXPECT_EQ(synthetic_png_url(40, 24, 7), url);
  EXPECT_NE(synthetic_png_url(40, 24, 8), url);
}

TEST(Images, FilesByExtensionAndSizesByFlag) {
  const fs::path p = testing::test_dir() / "picture.JPG";
  std::ofstream(p, std::ios::binary) << "abc";
  EXPECT_EQ(image_file_url(p.string()), "data:image/jpeg;base64,YWJj");
  fs::remove(p);
  EXPECT_THROW((void)image_file_url(p.string()), std::runtime_error);  // gone: cannot be read
  try {
    (void)image_file_url("/tmp/picture.bmp");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown type '.bmp'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_image_size("512x384"), std::make_pair(512, 384));
  for (const char* bad : {"512", "512x", "x512", "0x5", "9000x10", "5x5x", "-1x4", "a x b"})
    EXPECT_THROW((void)parse_image_size(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace tokbench::dataset
