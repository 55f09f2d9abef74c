// Package firstseen numbers keys in order of first appearance, for the
// simulations that take a key's dense id from their caller (AddID) when a
// caller has none to give.
package firstseen

import "math"

// Add feeds add the dense id of key, the keys numbered in order of first
// appearance: ids holds those numbered so far, so a key never seen gets
// len(ids). A new key keeps its number only if add accepts the request,
// so that a refused request leaves no gap.
func Add(ids map[string]int32, key []byte, add func(id int32) error) error {
	id, ok := ids[string(key)]
	if !ok {
		id = int32(min(len(ids), math.MaxInt32))
	}
	if err := add(id); err != nil {
		return err
	}
	if !ok {
		ids[string(key)] = id
	}
	return nil
}
