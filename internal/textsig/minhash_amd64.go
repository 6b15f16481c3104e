//go:build avx512minhash && !purego

package textsig

import "golang.org/x/sys/cpu"

// Only with the build tag avx512minhash: on the plain-http farm at 20,000
// sites (BenchmarkFarmThroughput, one run each) the crawl with it sent
// 7-13% fewer requests per CPU-second than without, though MinHash itself
// ran 3.2 times faster: a core that runs 512-bit multiplies may lower its
// clock for the code around them too. Measure before turning it on.
//
// On amd64 with AVX-512 (F and DQ, for a 64-bit multiply of eight lanes),
// minHash runs all 32 functions on a shingle at once, in four 512-bit
// registers: each hash is two multiplies, and eight of them in one
// instruction is what the one-at-a-time loop (bound by its multiplies)
// cannot do; 3.2 times faster (BenchmarkMinHash, 47 -> 15 us). The same
// values, the same arithmetic lane by lane: TestMinHashMatchesReference
// and FuzzMinHashMatchesReference check both against the reference.

//go:noescape
func minHashAVX512(shingles []uint64, m *MinHash)

// avx512 is whether this processor and system run minHashAVX512 (x/sys/cpu
// asks CPUID and, through XGETBV, whether the system saves the AVX-512
// registers); read once, never changed.
var avx512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// minHash keeps, for each of Hashes hash functions, the least hash of any
// shingle: minHashScalar's values, eight functions an instruction where
// the processor can.
func minHash(shingles []uint64) MinHash {
	if !avx512 {
		return minHashScalar(shingles)
	}
	var m MinHash
	minHashAVX512(shingles, &m)
	return m
}
