package compare

// The engine replays every algorithm of the catalogue, the deployed
// products included: importing package products registers them
// (algorithms.Register), so that a Config may name any of them.
import _ "ratebench/algorithms/products"
