// Host-only test of kExact's carry (scan1d_variants.cuh: ToWide, AddW, FromWide; no GPU): random
// doubles that are multiples of 2^-149 below 2^170 (what a float32 cumsum tile's double-double
// holds), summed as Wides in two orders (left to right, pairwise), against a separate big-integer
// sum (signed 32-bit digits, carried at the end), limb for limb; FromWide of each sum within
// 2^-104 of it (the difference taken exactly as a Wide); one double through ToWide and FromWide
// comes back bit for bit; the non-finite part (+-inf, NaN) as IEEE adds. Build:
// nvcc -std=c++17 -O2 -arch=sm_90a --expt-relaxed-constexpr -I. -o build-harness/scan1d_wide_test
// tools/dev/harness/scan1d/wide_test.cu && build-harness/scan1d_wide_test
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tools/dev/harness/scan1d/scan1d_variants.cuh"

using scan1d::Wide;

namespace {

constexpr int kDigits = 12;  // 384 bits of 32-bit digits

// d = m * 2^e exactly, m < 2^53, e >= -149 (the generator's form).
void RefAdd(long long (&acc)[kDigits], double d) {
  if (d == 0) return;
  int e;
  const double f = std::frexp(std::fabs(d), &e);  // |d| = f 2^e, f in [0.5, 1)
  unsigned long long m = static_cast<unsigned long long>(std::ldexp(f, 53));
  int p = e - 53 + 149;  // m's bit 0 in units of 2^-149
  while (p < 0) {        // trailing zeros only
    m >>= 1;
    ++p;
  }
  const int q = p / 32, r = p % 32;  // m << r is below 2^85: three 32-bit pieces
  const unsigned long long pieces[3] = {(m << r) & 0xffffffffull, (r == 0 ? m >> 32 : m >> (32 - r)) & 0xffffffffull,
                                        r == 0 ? 0ull : (m >> (64 - r)) & 0xffffffffull};
  for (int i = 0; i < 3; ++i) {
    if (q + i < kDigits) acc[q + i] += d < 0 ? -static_cast<long long>(pieces[i]) : static_cast<long long>(pieces[i]);
  }
}
// Carried to 10 digits mod 2^320 (two's complement) as 5 limbs.
void RefLimbs(const long long (&acc)[kDigits], unsigned long long (&l)[scan1d::kWL]) {
  long long c = 0;
  unsigned dig[kDigits];
  for (int i = 0; i < kDigits; ++i) {
    const long long v = acc[i] + c;
    dig[i] = static_cast<unsigned>(v & 0xffffffffll);
    c = (v - static_cast<long long>(dig[i])) / 4294967296ll;  // floor division: exact
  }
  for (int i = 0; i < scan1d::kWL; ++i) l[i] = (static_cast<unsigned long long>(dig[2 * i + 1]) << 32) | dig[2 * i];
}

}  // namespace

int main() {
  std::mt19937_64 g(2911);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto draw = [&]() -> double {
    const double r = u(g);
    if (r < 0.03) return 0.0;
    const int bits = 1 + static_cast<int>(u(g) * 53);  // significant bits
    unsigned long long m = (g() >> (64 - bits)) | (1ull << (bits - 1));
    int emax = 169 - bits, emin = -149;
    int e = r < 0.2 ? emin + static_cast<int>(u(g) * 40) : emin + static_cast<int>(u(g) * (emax - emin + 1));
    if (r < 0.25) e = emax;  // the largest magnitudes
    const double d = std::ldexp(static_cast<double>(m), e);
    return u(g) < 0.5 ? -d : d;
  };
  int64_t bad = 0, sums = 0;
  for (int it = 0; it < 20000; ++it, ++sums) {
    const int n = 1 + static_cast<int>(u(g) * (it % 10 == 0 ? 2000 : 40));
    std::vector<double> d(n);
    const bool cancel = it % 3 == 0;  // pairs that cancel but for their low bits
    for (int i = 0; i < n; ++i) d[i] = (cancel && i % 2 == 1) ? -d[i - 1] + draw() * 0x1p-60 : draw();
    for (double& v : d) {  // the cancelling terms rounded back onto 2^-149
      v = std::nearbyint(std::ldexp(v, 149)) == std::ldexp(v, 149) ? v : std::ldexp(std::trunc(std::ldexp(v, 149)), -149);
    }
    long long acc[kDigits] = {};
    for (double v : d) RefAdd(acc, v);
    unsigned long long ref[scan1d::kWL];
    RefLimbs(acc, ref);
    Wide a = scan1d::ZeroW();
    for (double v : d) a = scan1d::AddW(a, scan1d::ToWide(v));
    std::vector<Wide> t;
    for (double v : d) t.push_back(scan1d::ToWide(v));
    while (t.size() > 1) {  // pairwise, right to left
      std::vector<Wide> nx;
      for (size_t i = 0; i < t.size(); i += 2) nx.push_back(i + 1 < t.size() ? scan1d::AddW(t[i + 1], t[i]) : t[i]);
      t = nx;
    }
    const bool eq = std::memcmp(a.l, ref, sizeof ref) == 0 && std::memcmp(t[0].l, ref, sizeof ref) == 0;
    const scan1d::DD r = scan1d::FromWide(a);
    Wide diff = scan1d::ToWideDD(r);
    scan1d::NegW(diff.l);
    diff = scan1d::AddW(diff, a);
    const scan1d::DD dr = scan1d::FromWide(diff);
    const bool close = std::fabs(dr.hi) <= 0x1p-104 * std::fabs(r.hi) && std::fabs(r.lo) <= 0x1p-52 * std::fabs(r.hi);
    if (!eq || !close) {
      if (++bad <= 5) std::printf("sum %d (n %d): limbs %s, FromWide (%a, %a) off by %a\n", it, n, eq ? "ok" : "WRONG", r.hi, r.lo, dr.hi);
    }
  }
  int64_t rt_bad = 0;
  for (int it = 0; it < 200000; ++it) {
    const double v = draw();
    const scan1d::DD r = scan1d::FromWide(scan1d::ToWide(v));
    if (!(r.hi == v && r.lo == 0.0 && std::signbit(r.hi) == std::signbit(v * 1.0 + 0.0))) {
      if (v != 0 || r.hi != 0) ++rt_bad;
    }
  }
  // the non-finite part: +inf + -inf = NaN, NaN wins, a finite value leaves it alone
  const double inf = INFINITY;
  Wide s = scan1d::AddW(scan1d::ToWide(inf), scan1d::ToWide(1.5));
  const bool sp_ok = scan1d::FromWide(s).hi == inf &&
                     std::isnan(scan1d::FromWide(scan1d::AddW(s, scan1d::ToWide(-inf))).hi) &&
                     std::isnan(scan1d::FromWide(scan1d::AddW(scan1d::ToWide(NAN), scan1d::ToWide(2.0))).hi) &&
                     scan1d::FromWide(scan1d::AddW(scan1d::ToWide(-inf), scan1d::ToWide(-inf))).hi == -inf;
  std::printf("wide_test: %lld sums, %lld wrong or inexact; %lld of 200000 round trips not bit for bit; "
              "non-finite %s: %s\n",
              static_cast<long long>(sums), static_cast<long long>(bad), static_cast<long long>(rt_bad),
              sp_ok ? "ok" : "WRONG", bad == 0 && rt_bad == 0 && sp_ok ? "ok" : "FAIL");
  return bad == 0 && rt_bad == 0 && sp_ok ? 0 : 1;
}
