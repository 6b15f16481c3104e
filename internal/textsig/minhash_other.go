//go:build !amd64 || !avx512minhash || purego

package textsig

// minHash is minHashScalar where there is no AVX-512 code (another
// architecture, or built without the avx512minhash tag or with purego).
func minHash(shingles []uint64) MinHash { return minHashScalar(shingles) }
