package summary

import "cmp"

// TieOrder is the last comparison of every ordering of runs the verdict
// and the report make (Ranked: memory, then disagreement; the report's
// league of products: disagreement, then memory), where their own figures
// tie: a textbook algorithm before a product (a run with Product set),
// then by name. One rule everywhere, so that at identical figures the
// verdict's choice, its frontier and picks, the league table's first and
// summary.json name the same algorithm, whatever the order of -alg.
func TieOrder(a, b *Run) int {
	return cmp.Or(cmp.Compare(boolRank(a.Product != nil), boolRank(b.Product != nil)), cmp.Compare(a.Algorithm, b.Algorithm))
}

// boolRank orders false before true.
func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
