#pragma once
// dataset/images: images for multimodal chat requests, as OpenAI's `image_url` content parts take
// them — `data:` URLs with base64 bytes. Synthetic PNGs (seeded, through libpng) for --image WxH,
// and image files named by dataset lines. Knows nothing about HTTP or the request body.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokbench::dataset {

/// RFC 4648 base64 (with padding).
std::string base64(std::string_view bytes);

/// A width x height RGB PNG of seeded 16x16-pixel colour blocks (so it compresses like a picture,
/// not like noise), as a `data:image/png;base64,...` URL.
std::string synthetic_png_url(int width, int height, uint64_t seed);

/// An image file as a data URL; its type from the extension (png, jpg/jpeg, webp, gif). Throws
/// naming the file when it cannot be read or its type is not one of those.
std::string image_file_url(const std::string& path);

/// Parses --image "WxH" (each side 1..8192). Throws std::invalid_argument naming the flag.
std::pair<int, int> parse_image_size(std::string_view text);

}  // namespace tokbench::dataset
