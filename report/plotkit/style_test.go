package plotkit

import (
	"fmt"
	"testing"
)

func TestStylesDistinct(t *testing.T) {
	names := append([]string{"log"}, KnownAlgorithms...)
	for i := 0; i < 40; i++ {
		names = append(names, fmt.Sprintf("product-%d", i))
	}
	sts := Styles(names)
	for i := range sts {
		for j := range i {
			if SamePair(sts[i], sts[j]) {
				t.Errorf("%s and %s share colour and shape", names[i], names[j])
			}
		}
	}
	for i, n := range names[:len(KnownAlgorithms)+1] {
		if !SamePair(sts[i], StyleOf(n)) {
			t.Errorf("%s lost its own style", n)
		}
	}
	again := Styles(names)
	for i := range sts {
		if !SamePair(sts[i], again[i]) {
			t.Errorf("%s: not deterministic", names[i])
		}
	}
}
