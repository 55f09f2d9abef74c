package compare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/traces"
)

// TestKeyTableAgainstMap interns, releases and re-interns random keys
// (short, exactly inlineKey bytes, long ones sharing their first inlineKey
// bytes, and keys whose hashes are forced to collide) and checks every id
// against a Go map kept beside it: a key keeps its id while live, two live
// keys never share one, and a released key is found no more.
func TestKeyTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	long := strings.Repeat("x", inlineKey)
	var names []string
	for i := range 3000 {
		switch i % 4 {
		case 0:
			names = append(names, fmt.Sprintf("10.0.%d.%d", i>>8, i&255))
		case 1:
			names = append(names, fmt.Sprintf("%s%d", long, i)) // same head, differs past it
		case 2:
			names = append(names, fmt.Sprintf("%0*d", inlineKey, i)) // exactly inlineKey bytes
		default:
			names = append(names, fmt.Sprintf("k%d", i))
		}
	}
	// Every key of one in eight hashes alike: the table must tell them
	// apart by name.
	hashOf := func(name string) uint64 {
		if len(name)%8 == 0 {
			return 0xdeadbeef_00000000
		}
		return traces.KeyHash([]byte(name))
	}
	k := newKeyTable()
	want := map[string]int32{}
	var now int64
	for step := range 60_000 {
		name := names[rng.IntN(len(names))]
		now++
		if id, ok := want[name]; ok && rng.IntN(5) == 0 {
			k.release(id)
			delete(want, name)
			continue
		}
		var id int32
		var isNew bool
		var err error
		if step%2 == 0 {
			id, isNew, err = k.internHash([]byte(name), hashOf(name), now)
		} else if hashOf(name) == traces.KeyHash([]byte(name)) {
			id, isNew, err = k.intern([]byte(name), now)
		} else {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		prev, ok := want[name]
		if isNew == ok || ok && prev != id {
			t.Fatalf("step %d: %q got id %d (new %v), want %d (known %v)", step, name, id, isNew, prev, ok)
		}
		if k.name(id) != name {
			t.Fatalf("step %d: id %d names %q, want %q", step, id, k.name(id), name)
		}
		want[name] = id
	}
	if k.live != len(want) {
		t.Fatalf("%d keys live, want %d", k.live, len(want))
	}
	seen := map[int32]string{}
	for name, id := range want {
		if other, dup := seen[id]; dup {
			t.Fatalf("%q and %q share id %d", name, other, id)
		}
		seen[id] = name
	}
}

// TestKeyTableOrder checks that a key's time may not go back, after a
// lookup by hash and after the last-key shortcut alike.
func TestKeyTableOrder(t *testing.T) {
	k := newKeyTable()
	for _, key := range []string{"a", "b", strings.Repeat("z", 2*inlineKey)} {
		if _, _, err := k.intern([]byte(key), 10); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range []string{"b", "b", "a", strings.Repeat("z", 2*inlineKey)} {
		_, _, err := k.intern([]byte(key), 5)
		if _, ok := err.(*OrderError); !ok {
			t.Fatalf("%q back in time: err %v, want an OrderError", key, err)
		}
	}
}

// A name of up to inlineKey bytes is held whole in its key's state and
// nowhere else: a table of such names keeps no long names at all, and
// keeps a longer one only as far as its id. Keys interned by a dense id
// of their own (a generator's) are named alike.
func TestKeyTableKeepsShortNamesInTheirState(t *testing.T) {
	k := newKeyTable()
	for i := range 5000 {
		name := fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255)
		if i%2 == 0 {
			name = fmt.Sprintf("%0*d", inlineKey, i)
		}
		id, _, err := k.intern([]byte(name), 1)
		if err != nil || k.name(id) != name {
			t.Fatalf("key %q: id %d names %q (err %v)", name, id, k.name(id), err)
		}
	}
	if k.long.Len() != 0 {
		t.Fatalf("%d long names kept for names of at most %d bytes", k.long.Len(), inlineKey)
	}
	long := strings.Repeat("y", inlineKey) + "z"
	id, _, _ := k.intern([]byte(long), 1)
	if k.long.Len() != int(id)+1 || k.name(id) != long {
		t.Fatalf("long name %q: id %d names %q, %d long names kept", long, id, k.name(id), k.long.Len())
	}
	g := newKeyTable()
	for i, name := range []string{"a", strings.Repeat("q", inlineKey), long} {
		if _, err := g.internIndexed(int32(2*i), []byte(name), 1); err != nil || g.name(int32(2*i)) != name {
			t.Fatalf("indexed key %d: named %q, want %q (err %v)", 2*i, g.name(int32(2*i)), name, err)
		}
	}
}
