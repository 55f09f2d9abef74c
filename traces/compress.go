package traces

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Compression of the text formats: Open recognizes gzip and zstd streams
// by their magic bytes, whatever the file is called, and reads them
// decompressed; Create compresses when the file name ends in .gz, .zst or
// .zstd.

// compression is a compressed stream format.
type compression uint8

const (
	compressNone compression = iota
	compressGzip
	compressZstd
)

func (c compression) String() string {
	switch c {
	case compressGzip:
		return "gzip"
	case compressZstd:
		return "zstd"
	}
	return "uncompressed"
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// sniffCompression tells the compression from the first bytes of a file.
func sniffCompression(head []byte) compression {
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		return compressGzip
	case bytes.HasPrefix(head, zstdMagic):
		return compressZstd
	}
	return compressNone
}

// compressionOfPath tells the compression a file name asks for.
func compressionOfPath(path string) compression {
	switch stripped := stripCompressionExt(path); {
	case stripped == path:
		return compressNone
	case len(path)-len(stripped) == 3:
		return compressGzip
	}
	return compressZstd
}

// defaultZstdMaxWindow bounds the window a zstd frame may ask for, and so
// the memory of the decoder (Options.zstdMaxWindow overrides it): 128 MiB
// is zstd's own default limit (--long=27).
const defaultZstdMaxWindow = 128 << 20

// decompressor is a decompressing reader whose errors say what went wrong
// with the stream.
type decompressor struct {
	r    io.Reader
	kind compression
	zr   *zstd.Decoder
	err  error // the first error, returned again by every Read after it
}

// newDecompressor starts decompressing r. A stream too short for its header
// is an error. maxWindow bounds a zstd frame's window (0: the default).
func newDecompressor(kind compression, r io.Reader, maxWindow uint64) (*decompressor, error) {
	if maxWindow == 0 {
		maxWindow = defaultZstdMaxWindow
	}
	d := &decompressor{kind: kind}
	switch kind {
	case compressGzip:
		gr, err := gzip.NewReader(r)
		if err != nil {
			return nil, d.wrap(err)
		}
		d.r = gr
	case compressZstd:
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, d.wrap(err)
		}
		d.zr, d.r = zr, zr
	default:
		return nil, fmt.Errorf("traces: unknown compression %d", kind)
	}
	return d, nil
}

func (d *decompressor) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.r.Read(p)
	if err != nil {
		if err != io.EOF {
			err = d.wrap(err)
		}
		d.err = err
	}
	return n, err
}

// Close releases the decoder; it does not close the underlying reader.
func (d *decompressor) Close() error {
	if d.zr != nil {
		d.zr.Close()
		d.zr = nil
	}
	if d.err == nil {
		d.err = errors.New("read after Close")
	}
	return nil
}

func (d *decompressor) wrap(err error) error {
	if errors.Is(err, ErrInterrupted) { // the stream is not at fault
		return ErrInterrupted
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &streamError{kind: d.kind, err: err}
}

// streamError is an error decompressing a stream.
type streamError struct {
	kind compression
	err  error
}

func (e *streamError) Error() string {
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return fmt.Sprintf("%s stream is truncated (unexpected end of the compressed data)", e.kind)
	}
	return fmt.Sprintf("corrupt %s stream: %v", e.kind, e.err)
}

func (e *streamError) Unwrap() error { return e.err }

// newCompressor returns a writer compressing to w; its Close finishes the
// stream but does not close w.
func newCompressor(kind compression, w io.Writer) (io.WriteCloser, error) {
	switch kind {
	case compressGzip:
		return gzip.NewWriter(w), nil
	case compressZstd:
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	}
	return nil, fmt.Errorf("traces: unknown compression %d", kind)
}

// closers closes its members in order and returns the first error.
type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if c == nil {
			continue
		}
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
