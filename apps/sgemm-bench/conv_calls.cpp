// The conv suite's layers (conv.hpp).
#include <sstream>

#include "conv.hpp"

namespace sgemm::bench {

std::vector<ConvLayer> conv_suite_calls() {
  struct Layer {
    const char* name;
    std::int64_t hw, c, k, rs, stride;  // square input and filter; "same" padding (rs / 2)
  };
  // Each stage's first block downsamples with its 3x3 (stride 2) and projects the shortcut with a
  // strided 1x1 ("down"); the other blocks reduce, convolve and expand at the stage's size.
  // res2's projection (1x1 64->256 on 56x56) has the shape of its expand. The first blocks' 1x1
  // reducers of res4 and res5 run once per network and fall between res3's entry and the
  // repeated reducers, so they are left out.
  static constexpr Layer kLayers[] = {
      {"stem.7x7s2", 224, 3, 64, 7, 2},
      {"res2.entry", 56, 64, 64, 1, 1},
      {"res2.3x3", 56, 64, 64, 3, 1},
      {"res2.expand", 56, 64, 256, 1, 1},
      {"res2.reduce", 56, 256, 64, 1, 1},
      {"res3.entry", 56, 256, 128, 1, 1},
      {"res3.3x3s2", 56, 128, 128, 3, 2},
      {"res3.down", 56, 256, 512, 1, 2},
      {"res3.3x3", 28, 128, 128, 3, 1},
      {"res3.expand", 28, 128, 512, 1, 1},
      {"res3.reduce", 28, 512, 128, 1, 1},
      {"res4.3x3s2", 28, 256, 256, 3, 2},
      {"res4.down", 28, 512, 1024, 1, 2},
      {"res4.3x3", 14, 256, 256, 3, 1},
      {"res4.expand", 14, 256, 1024, 1, 1},
      {"res4.reduce", 14, 1024, 256, 1, 1},
      {"res5.3x3s2", 14, 512, 512, 3, 2},
      {"res5.down", 14, 1024, 2048, 1, 2},
      {"res5.3x3", 7, 512, 512, 3, 1},
      {"res5.expand", 7, 512, 2048, 1, 1},
      {"res5.reduce", 7, 2048, 512, 1, 1},
  };
  std::vector<ConvLayer> v;
  for (std::int64_t batch : {32, 64})
    for (const Layer& l : kLayers) {
      Conv2dShape s;
      s.n = batch, s.h = s.w = l.hw, s.c = l.c, s.k = l.k, s.r = s.s = l.rs;
      s.pad_h = s.pad_w = l.rs / 2;
      s.stride_h = s.stride_w = l.stride;
      v.push_back({l.name, s});
    }
  return v;
}

std::string describe(const Conv2dShape& s) {
  std::ostringstream o;
  o << s.n << 'x' << s.h << 'x' << s.w << 'x' << s.c << " k" << s.k << ' ' << s.r << 'x' << s.s;
  auto pair = [&](const char* tag, std::int64_t h, std::int64_t w, std::int64_t plain) {
    if (h == plain && w == plain) return;
    o << ' ' << tag << h;
    if (w != h) o << ',' << w;
  };
  pair("p", s.pad_h, s.pad_w, 0);
  pair("s", s.stride_h, s.stride_w, 1);
  pair("d", s.dilation_h, s.dilation_w, 1);
  if (s.groups != 1) o << " g" << s.groups;
  return o.str();
}

double conv_flops(const Conv2dShape& s) {
  return 2.0 * double(s.n) * double(s.p()) * double(s.q()) * double(s.k) *
         double(s.c / s.groups) * double(s.r) * double(s.s);
}

}  // namespace sgemm::bench
