// Package products models the rate limiters people deploy (nginx's
// limit_req, Envoy, Upstash, redis_rate, Kong, the Go libraries...) as
// candidates beside the exact sliding log, each from its source: the doc
// comment of its file cites the commit, file and lines it follows.
//
// # Model
//
// Each product is a textbook algorithm of package algorithms, its twin,
// plus named deviations (algorithms.Product): its clock's granularity, a
// rate truncated when parsed, a window anchored at the key's first
// request, refused requests counted, a refusal cache, float arithmetic.
// Each deviation can be turned off ("nginx:without=clock"); with all of
// them off a product decides as its twin, request by request (the tests
// check it for each product). The models build on the textbook
// algorithms' exported kit (algorithms.CounterState, TokenState, TAT,
// U128, the exact counter comparisons) and keep their per-key state in
// algorithms.PerKey values, which a replay may place in its Block.
//
// # Registry
//
// Each product registers its kind (spec, place, description, constructor)
// with algorithms.Register from its own file, when the program starts: a
// program that imports this package (the compare engine does) can name
// every product in algorithms.New, lists them in algorithms.Catalogue, and
// names them all with the set "products" in a list of specs (-alg
// log,products). The place (algorithms.Kind.Place) is the order the
// products were added in, which the catalogue keeps: a new product takes
// the next, so that a comparison of every product adds its runs last.
package products
