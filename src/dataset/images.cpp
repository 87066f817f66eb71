#include "dataset/images.hpp"

#include <fmt/format.h>
#include <png.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>

namespace tokbench::dataset {

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                       (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string synthetic_png_url(int width, int height, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int bw = (width + 15) / 16;
  std::vector<uint8_t> blocks(static_cast<size_t>(bw) * static_cast<size_t>((height + 15) / 16) *
                              3);
  for (auto& b : blocks) b = static_cast<uint8_t>(rng());
  std::vector<uint8_t> rgb(static_cast<size_t>(width) * static_cast<size_t>(height) * 3);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c)
        rgb[(static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)) * 3 +
            static_cast<size_t>(c)] =
            blocks[(static_cast<size_t>(y / 16) * static_cast<size_t>(bw) +
                    static_cast<size_t>(x / 16)) *
                       3 +
                   static_cast<size_t>(c)];
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(width);
  image.height = static_cast<png_uint_32>(height);
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, rgb.data(), 0, nullptr))
    throw std::runtime_error(
        fmt::format("libpng could not size a {}x{} PNG: {}", width, height, image.message));
  std::string png(size, '\0');
  if (!png_image_write_to_memory(&image, png.data(), &size, 0, rgb.data(), 0, nullptr))
    throw std::runtime_error(
        fmt::format("libpng could not write a {}x{} PNG: {}", width, height, image.message));
  png.resize(size);
  return "data:image/png;base64," + base64(png);
}

std::string image_file_url(const std::string& path) {
  const size_t dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const char* mime = ext == "png"                    ? "image/png"
                     : ext == "jpg" || ext == "jpeg" ? "image/jpeg"
                     : ext == "webp"                 ? "image/webp"
                     : ext == "gif"                  ? "image/gif"
                                                     : nullptr;
  if (!mime) {
    throw std::runtime_error(fmt::format(
        "image '{}': unknown type '.{}' (expected .png, .jpg, .jpeg, .webp or .gif)", path, ext));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        fmt::format("image '{}': cannot be read (check the path in the dataset line)", path));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return fmt::format("data:{};base64,{}", mime, base64(bytes));
}

std::pair<int, int> parse_image_size(std::string_view text) {
  const size_t x = text.find('x');
  int w = 0, h = 0;
  const auto bad = [&] {
    return std::invalid_argument(
        fmt::format("--image: bad value '{}' (expected WIDTHxHEIGHT in pixels, each 1 to 8192, "
                    "e.g. 512x512)",
                    text));
  };
  if (x == std::string_view::npos) throw bad();
  const auto a = std::from_chars(text.data(), text.data() + x, w);
  const auto b = std::from_chars(text.data() + x + 1, text.data() + text.size(), h);
  if (a.ec != std::errc() || a.ptr != text.data() + x || b.ec != std::errc() ||
      b.ptr != text.data() + text.size() || w < 1 || h < 1 || w > 8192 || h > 8192)
    throw bad();
  return {w, h};
}

}  // namespace tokbench::dataset
