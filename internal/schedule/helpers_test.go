package schedule

import (
	"cmp"
	"slices"
)

func slicesSortDesc(x []float64) {
	slices.SortFunc(x, func(a, b float64) int { return cmp.Compare(b, a) })
}
