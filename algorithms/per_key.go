package algorithms

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Block is per-key storage that a replay owns for the many limiters and
// accumulators it runs side by side: key id's part is the words
// [id*stride, (id+1)*stride), and each value placed in it (PerKey.Place)
// sits at an offset of that part fixed when it was placed. What one
// request reads of its key, in every limiter placed there, is then a few
// adjacent cache lines rather than one line per limiter, each in a slice of
// its own.
//
// Values are placed before the block first grows, and hold no pointers (a
// word is a uint64 to the garbage collector). The zero Block is empty.
type Block struct {
	words  []uint64
	stride int // words per key
	n      int // ids below n are valid
}

// reserve returns the offset of words new words in every key's part.
func (b *Block) reserve(words int) int {
	if b.n > 0 {
		panic("algorithms: a value placed in a Block that has grown")
	}
	off := b.stride
	b.stride += words
	return off
}

// Grow makes ids below n valid, the new keys' words zero (every placed
// value's initial state), keeping the others'. Capacity doubles, as a
// slice's.
func (b *Block) Grow(n int) {
	if n <= b.n {
		return
	}
	b.words = grow(b.words, n*b.stride)
	b.n = n
}

// Stride returns the words of each key's part.
func (b *Block) Stride() int { return b.stride }

// Key returns key id's part: every value placed in the block, for key id.
func (b *Block) Key(id int32) []uint64 {
	i := int(id) * b.stride
	return b.words[i : i+b.stride : i+b.stride]
}

// PerKey holds a fixed number of values of S per key id (one by default):
// the state a limiter keeps of each key, or a run's figures of it. They
// sit in a slice of their own until placed in a Block (Place); from then
// on they are part of each key's block and grow with it. The zero PerKey
// holds one value per key.
type PerKey[S any] struct {
	own   []S
	per   int // values per key; 0 means 1
	block *Block
	off   int // the values' offset, in words, in each key's part of block
}

// NewPerKey returns the storage of per values of S for each key.
func NewPerKey[S any](per int) PerKey[S] {
	if per < 1 {
		panic(fmt.Sprintf("algorithms: %d values per key", per))
	}
	return PerKey[S]{per: per}
}

func (k *PerKey[S]) width() int { return max(k.per, 1) }

// At returns key id's (first) value.
func (k *PerKey[S]) At(id int32) *S {
	if k.block == nil {
		return &k.own[int(id)*k.width()]
	}
	b := k.block
	return (*S)(unsafe.Pointer(&b.words[int(id)*b.stride+k.off]))
}

// Row returns key id's values.
func (k *PerKey[S]) Row(id int32) []S {
	w := k.width()
	if k.block == nil {
		i := int(id) * w
		return k.own[i : i+w : i+w]
	}
	b := k.block
	_ = b.words[int(id)*b.stride+b.stride-1] // the key's whole part is in range
	return unsafe.Slice((*S)(unsafe.Pointer(&b.words[int(id)*b.stride+k.off])), w)
}

// Grow makes ids below n valid, the new ones zero; placed values grow
// with their block.
func (k *PerKey[S]) Grow(n int) {
	if k.block == nil {
		k.own = grow(k.own, n*k.width())
	}
}

// Len returns one more than the largest valid id.
func (k *PerKey[S]) Len() int {
	if k.block == nil {
		return len(k.own) / k.width()
	}
	return k.block.n
}

// Placed reports whether the values live in a Block.
func (k *PerKey[S]) Placed() bool { return k.block != nil }

// Place moves the values into b, whose keys each gain their words. It must
// be called before either holds a key, and panics if S holds pointers.
func (k *PerKey[S]) Place(b *Block) {
	t := reflect.TypeFor[S]()
	if !pointerFree(t) {
		panic("algorithms: " + t.String() + " holds pointers: it cannot be placed in a Block")
	}
	if len(k.own) > 0 || k.block != nil {
		panic("algorithms: values placed after they hold keys")
	}
	words := (int(t.Size())*k.width() + 7) / 8
	k.block, k.off = b, b.reserve(words)
}

// pointerFree reports whether a value of t holds no pointer.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// Placer is a limiter whose per-key state can live in a caller's Block
// (see Block): Place moves it there, before the limiter holds a key, and
// from then on the block's Grow, not the limiter's, makes ids valid.
// Decisions are the same wherever the state lives.
type Placer interface {
	Place(b *Block)
}
