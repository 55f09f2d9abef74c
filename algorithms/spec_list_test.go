package algorithms_test

import (
	"slices"
	"strings"
	"testing"

	"ratebench/algorithms"
)

// productNames are the names of the registered products, in the
// catalogue's order.
func productNames() []string {
	var out []string
	for _, k := range algorithms.Products() {
		out = append(out, k.Name())
	}
	return out
}

// A set stands for its kinds, in the catalogue's order: textbook for the
// textbook algorithms (buckets as buckets:4), products for every product;
// mixed with names, each algorithm comes once, where it first comes.
func TestParseSpecsExpandsSets(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	textbook := []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "xrate", "buckets:4", "leaky"}
	got, err := algorithms.ParseSpecs("log,textbook", r)
	if err != nil || !slices.Equal(got.Names, textbook) || got.Skipped != nil {
		t.Errorf("log,textbook: %v, %v; want %v", got, err, textbook)
	}
	products := productNames()
	if len(products) < 26 || products[0] != "nginx" {
		t.Fatalf("products %v", products)
	}
	got, err = algorithms.ParseSpecs("products", r)
	if err != nil || !slices.Equal(got.Names, products) || got.Skipped != nil {
		t.Errorf("products: %v, %v; want %v", got, err, products)
	}
	got, err = algorithms.ParseSpecs(" kong , products,counter,textbook", r)
	want := append(append([]string{"kong"}, slices.DeleteFunc(slices.Clone(products), func(p string) bool { return p == "kong" })...), "counter")
	want = append(want, slices.DeleteFunc(slices.Clone(textbook), func(s string) bool { return s == "counter" })...)
	if err != nil || !slices.Equal(got.Names, want) {
		t.Errorf("kong,products,counter,textbook: %v, %v; want %v", got.Names, err, want)
	}
}

// A kind a set brings in that one of the rules refuses is left out, once,
// saying which rule and why; named in the list, it is refused, as it is
// alone.
func TestParseSpecsLeavesOutWhatARuleRefuses(t *testing.T) {
	minute, _ := algorithms.ParseRule("10/1m")
	half, _ := algorithms.ParseRule("5/30s")
	got, err := algorithms.ParseSpecs("log,products,products", minute, half)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, s := range got.Skipped {
		left = append(left, s.Spec)
		if s.Set != "products" || s.Rule != half || !strings.Contains(s.Err.Error(), "not 30s") ||
			!strings.HasPrefix(s.String(), s.Spec+" is left out of products: it refuses rule 5/30s (algorithm \""+s.Spec+"\": ") {
			t.Errorf("%s left out as %+v: %s", s.Spec, s, s)
		}
	}
	if !slices.Equal(left, []string{"envoy", "kong", "aws-waf", "cloudflare-waf", "drf-throttling"}) {
		t.Errorf("left out %v, want envoy, kong, aws-waf, cloudflare-waf and drf-throttling", left)
	}
	want := append([]string{"log"}, slices.DeleteFunc(productNames(), func(p string) bool { return slices.Contains(left, p) })...)
	if !slices.Equal(got.Names, want) {
		t.Errorf("names %v, want %v", got.Names, want)
	}
	for _, list := range []string{"envoy,products", "products,envoy", "log,envoy"} {
		if _, err := algorithms.ParseSpecs(list, half); err == nil || !strings.Contains(err.Error(), `algorithm "envoy"`) {
			t.Errorf("%s under 5/30s: %v, want envoy refused", list, err)
		}
	}
}
