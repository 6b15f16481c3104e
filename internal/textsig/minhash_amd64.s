//go:build avx512minhash && !purego

#include "textflag.h"

// The 32 hash functions' steps, k·0x9e3779b97f4a7c15 for k = 0…31: eight
// to a 512-bit register, function k in lane k%8 of register k/8.
DATA hashSteps<>+0(SB)/8, $0x0000000000000000
DATA hashSteps<>+8(SB)/8, $0x9e3779b97f4a7c15
DATA hashSteps<>+16(SB)/8, $0x3c6ef372fe94f82a
DATA hashSteps<>+24(SB)/8, $0xdaa66d2c7ddf743f
DATA hashSteps<>+32(SB)/8, $0x78dde6e5fd29f054
DATA hashSteps<>+40(SB)/8, $0x1715609f7c746c69
DATA hashSteps<>+48(SB)/8, $0xb54cda58fbbee87e
DATA hashSteps<>+56(SB)/8, $0x538454127b096493
DATA hashSteps<>+64(SB)/8, $0xf1bbcdcbfa53e0a8
DATA hashSteps<>+72(SB)/8, $0x8ff34785799e5cbd
DATA hashSteps<>+80(SB)/8, $0x2e2ac13ef8e8d8d2
DATA hashSteps<>+88(SB)/8, $0xcc623af8783354e7
DATA hashSteps<>+96(SB)/8, $0x6a99b4b1f77dd0fc
DATA hashSteps<>+104(SB)/8, $0x08d12e6b76c84d11
DATA hashSteps<>+112(SB)/8, $0xa708a824f612c926
DATA hashSteps<>+120(SB)/8, $0x454021de755d453b
DATA hashSteps<>+128(SB)/8, $0xe3779b97f4a7c150
DATA hashSteps<>+136(SB)/8, $0x81af155173f23d65
DATA hashSteps<>+144(SB)/8, $0x1fe68f0af33cb97a
DATA hashSteps<>+152(SB)/8, $0xbe1e08c47287358f
DATA hashSteps<>+160(SB)/8, $0x5c55827df1d1b1a4
DATA hashSteps<>+168(SB)/8, $0xfa8cfc37711c2db9
DATA hashSteps<>+176(SB)/8, $0x98c475f0f066a9ce
DATA hashSteps<>+184(SB)/8, $0x36fbefaa6fb125e3
DATA hashSteps<>+192(SB)/8, $0xd5336963eefba1f8
DATA hashSteps<>+200(SB)/8, $0x736ae31d6e461e0d
DATA hashSteps<>+208(SB)/8, $0x11a25cd6ed909a22
DATA hashSteps<>+216(SB)/8, $0xafd9d6906cdb1637
DATA hashSteps<>+224(SB)/8, $0x4e115049ec25924c
DATA hashSteps<>+232(SB)/8, $0xec48ca036b700e61
DATA hashSteps<>+240(SB)/8, $0x8a8043bceaba8a76
DATA hashSteps<>+248(SB)/8, $0x28b7bd766a05068b
GLOBL hashSteps<>(SB), RODATA|NOPTR, $256

DATA mixMul1<>+0(SB)/8, $0xbf58476d1ce4e5b9
GLOBL mixMul1<>(SB), RODATA|NOPTR, $8
DATA mixMul2<>+0(SB)/8, $0x94d049bb133111eb
GLOBL mixMul2<>(SB), RODATA|NOPTR, $8
DATA low32<>+0(SB)/8, $0x00000000ffffffff
GLOBL low32<>(SB), RODATA|NOPTR, $8

// MIX_MIN folds one shingle's hash (broadcast in Z11) through the eight
// functions whose steps are in STEP, into the eight minimums in LEAST
// (64-bit lanes holding the low 32 bits of mix), with T and U scratch.
// X15 is left alone: Go code keeps it zero.
#define MIX_MIN(STEP, LEAST, T, U) \
	VPADDQ    STEP, Z11, T \
	VPSRLQ    $30, T, U    \
	VPXORQ    U, T, T      \
	VPMULLQ   Z4, T, T     \
	VPSRLQ    $27, T, U    \
	VPXORQ    U, T, T      \
	VPMULLQ   Z5, T, T     \
	VPSRLQ    $31, T, U    \
	VPXORQ    U, T, T      \
	VPANDQ    Z6, T, T     \
	VPMINUQ   T, LEAST, LEAST

// func minHashAVX512(shingles []uint64, m *MinHash)
TEXT ·minHashAVX512(SB), NOSPLIT, $0-32
	MOVQ shingles_base+0(FP), SI
	MOVQ shingles_len+8(FP), CX
	MOVQ m+24(FP), DI
	VMOVDQU64    hashSteps<>+0(SB), Z0
	VMOVDQU64    hashSteps<>+64(SB), Z1
	VMOVDQU64    hashSteps<>+128(SB), Z2
	VMOVDQU64    hashSteps<>+192(SB), Z3
	VPBROADCASTQ mixMul1<>(SB), Z4
	VPBROADCASTQ mixMul2<>(SB), Z5
	VPBROADCASTQ low32<>(SB), Z6
	VMOVDQA64    Z6, Z7
	VMOVDQA64    Z6, Z8
	VMOVDQA64    Z6, Z9
	VMOVDQA64    Z6, Z10
	TESTQ CX, CX
	JZ    done

loop:
	VPBROADCASTQ (SI), Z11
	MIX_MIN(Z0, Z7, Z12, Z13)
	MIX_MIN(Z1, Z8, Z14, Z20)
	MIX_MIN(Z2, Z9, Z16, Z17)
	MIX_MIN(Z3, Z10, Z18, Z19)
	ADDQ $8, SI
	DECQ CX
	JNZ  loop

done:
	VPMOVQD Z7, (DI)
	VPMOVQD Z8, 32(DI)
	VPMOVQD Z9, 64(DI)
	VPMOVQD Z10, 96(DI)
	VZEROUPPER
	RET
