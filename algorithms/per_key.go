package algorithms

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Block is per-key storage that a replay owns for the many limiters and
// accumulators it runs side by side: key id has a part of stride words,
// and each value placed in it (PerKey.Place) sits at an offset of that
// part fixed when it was placed, aligned as its type needs (a value of
// 32-bit fields takes a multiple of 4 bytes, not of a word). What one request reads of its key, in
// every limiter placed there, is then a few adjacent cache lines rather
// than one line per limiter, each in a slice of its own.
//
// The parts are kept in chunks of a power of two keys, allocated as the
// ids grow and never moved: growing copies nothing, and the memory held is
// the keys' parts and at most one chunk more.
//
// Values are placed before the block first grows, and hold no pointers (a
// word is a uint64 to the garbage collector), so the chunks may come from
// memory outside the Go heap (SetAlloc). The zero Block is empty.
type Block struct {
	chunks [][]uint64               // key id's part is in chunks[id>>shift], at (id&mask)*stride
	alloc  func(words int) []uint64 // gives a chunk zeroed words; nil: the Go heap
	shift  uint
	mask   int32
	bytes  int // bytes of the values placed per key
	stride int // words per key: bytes, rounded up
	n      int // ids below n are valid

	cur   []uint64 // the part of key curID, the last asked for (Key); nil before
	curID int32
}

// chunkWords is about the size of a chunk, in words (512 KiB).
const chunkWords = 1 << 16

// reserve returns the offset, in bytes, of size new bytes aligned to
// align (a power of two, at most 8) in every key's part.
func (b *Block) reserve(size, align int) int {
	if b.n > 0 {
		panic("algorithms: a value placed in a Block that has grown")
	}
	off := (b.bytes + align - 1) &^ (align - 1)
	b.bytes = off + size
	b.stride = (b.bytes + 7) / 8
	return off
}

// SetAlloc makes the block take its chunks from alloc, which returns n
// zeroed words that stay valid as long as the block is used (a replay's
// arena of huge pages), rather than from the Go heap. It must be called
// before the block first grows.
func (b *Block) SetAlloc(alloc func(words int) []uint64) {
	if b.n > 0 {
		panic("algorithms: an allocator set for a Block that has grown")
	}
	b.alloc = alloc
}

// Grow makes ids below n valid, and those of the rest of the last chunk,
// the new keys' words zero (every placed value's initial state), keeping
// the others' where they are.
func (b *Block) Grow(n int) {
	if n <= b.n {
		return
	}
	if b.n == 0 { // the chunk size, now that the stride is known
		b.shift = 0
		for b.shift < 20 && (2<<b.shift)*max(b.stride, 1) <= chunkWords {
			b.shift++
		}
		b.mask = 1<<b.shift - 1
	}
	for len(b.chunks)<<b.shift < n {
		words := (1 << b.shift) * b.stride
		if b.alloc != nil {
			b.chunks = append(b.chunks, b.alloc(words))
		} else {
			b.chunks = append(b.chunks, make([]uint64, words))
		}
	}
	b.n = len(b.chunks) << b.shift
}

// Len returns one more than the largest valid id.
func (b *Block) Len() int { return b.n }

// Stride returns the words of each key's part.
func (b *Block) Stride() int { return b.stride }

// Key returns key id's part: every value placed in the block, for key id.
// The part is remembered, so that the values a request's limiters then
// read of the same key are found without the chunk's lookup.
func (b *Block) Key(id int32) []uint64 {
	if id != b.curID || b.cur == nil {
		if int(id) >= b.n || id < 0 {
			panic(fmt.Sprintf("algorithms: key %d of a block of %d", id, b.n))
		}
		i := int(id&b.mask) * b.stride
		b.cur, b.curID = b.chunks[id>>b.shift][i:i+b.stride:i+b.stride], id
	}
	return b.cur
}

// Peek returns key id's part as Key does, but without remembering it (for
// a caller that loads a key's part ahead of its request), nil for an id
// that is not valid.
func (b *Block) Peek(id int32) []uint64 {
	if id < 0 || int(id) >= b.n {
		return nil
	}
	i := int(id&b.mask) * b.stride
	return b.chunks[id>>b.shift][i : i+b.stride : i+b.stride]
}

// at returns the address of byte off of key id's part.
func (b *Block) at(id int32, off int) unsafe.Pointer {
	if id == b.curID && b.cur != nil {
		return unsafe.Add(unsafe.Pointer(unsafe.SliceData(b.cur)), off)
	}
	return unsafe.Add(unsafe.Pointer(unsafe.SliceData(b.Key(id))), off)
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
	off   int // the values' offset, in bytes, in each key's part of block
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
	return (*S)(k.block.at(id, k.off))
}

// Row returns key id's values.
func (k *PerKey[S]) Row(id int32) []S {
	w := k.width()
	if k.block == nil {
		i := int(id) * w
		return k.own[i : i+w : i+w]
	}
	return unsafe.Slice((*S)(k.block.at(id, k.off)), w) // the whole part is in its chunk
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
	if t.Align() > 8 {
		panic("algorithms: " + t.String() + " needs an alignment of more than a word")
	}
	k.block, k.off = b, b.reserve(int(t.Size())*k.width(), t.Align())
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
