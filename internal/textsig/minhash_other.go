//go:build !amd64 || purego

package textsig

// minHash is minHashScalar where there is no AVX-512 code (another
// architecture, or built with the purego tag).
func minHash(shingles []uint64) MinHash { return minHashScalar(shingles) }
