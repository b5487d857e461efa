// Package wiredoc encodes decoded manifests (trees of maps, lists and
// scalars) in a compact binary form, for the render worker's replies and
// the render cache's entries. encoding/gob carries the same trees, but a
// value inside an interface costs it a type name and a registry lookup on
// every scalar, so decoding a cached chart's objects took longer than
// checking that chart's files; this form is a tag byte per value and
// lengths as varints, and it keeps every Go type it is given (an int64
// comes back an int64, an empty list an empty list, a nil list nil).
package wiredoc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxDepth bounds the nesting Decode accepts, as the YAML decoder bounds
// what it builds.
const MaxDepth = 10000

// The tags: one per Go type, so that a value decodes to the type it was.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagString
	tagInt64
	tagFloat64
	tagMap     // map[string]any
	tagList    // []any, not nil
	tagNilList // []any(nil)
	tagNilMap  // map[string]any(nil)
	tagInt
	tagInt8
	tagInt16
	tagInt32
	tagUint
	tagUint8
	tagUint16
	tagUint32
	tagUint64
	tagFloat32
	tagStrMap     // map[string]string
	tagStrList    // []string
	tagMapList    // []map[string]any
	tagNilStrMap  // map[string]string(nil)
	tagNilStrList // []string(nil)
	tagNilMapList // []map[string]any(nil)
)

// Append appends the encoding of v to b. v may hold what a decoded
// document holds: maps of string keys, lists, strings, booleans, numbers
// and nil, nested at most MaxDepth deep; anything else is an error.
func Append(b []byte, v any) ([]byte, error) { return appendValue(b, v, 0) }

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return b, fmt.Errorf("wiredoc: nested deeper than %d", MaxDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case string:
		return appendString(append(b, tagString), x), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt64), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat64), math.Float64bits(x)), nil
	case map[string]any:
		if x == nil {
			return append(b, tagNilMap), nil
		}
		return appendMap(append(b, tagMap), x, depth)
	case []any:
		if x == nil {
			return append(b, tagNilList), nil
		}
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		for _, e := range x {
			var err error
			if b, err = appendValue(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return appendOther(b, v, depth)
}

// appendOther encodes the types a document rarely holds (values a
// renderer stamped in Go rather than decoded from YAML).
func appendOther(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(x)), nil
	case int8:
		return binary.AppendVarint(append(b, tagInt8), int64(x)), nil
	case int16:
		return binary.AppendVarint(append(b, tagInt16), int64(x)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt32), int64(x)), nil
	case uint:
		return binary.AppendUvarint(append(b, tagUint), uint64(x)), nil
	case uint8:
		return binary.AppendUvarint(append(b, tagUint8), uint64(x)), nil
	case uint16:
		return binary.AppendUvarint(append(b, tagUint16), uint64(x)), nil
	case uint32:
		return binary.AppendUvarint(append(b, tagUint32), uint64(x)), nil
	case uint64:
		return binary.AppendUvarint(append(b, tagUint64), x), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(b, tagFloat32), math.Float32bits(x)), nil
	case map[string]string:
		if x == nil {
			return append(b, tagNilStrMap), nil
		}
		b = binary.AppendUvarint(append(b, tagStrMap), uint64(len(x)))
		for k, e := range x {
			b = appendString(appendString(b, k), e)
		}
		return b, nil
	case []string:
		if x == nil {
			return append(b, tagNilStrList), nil
		}
		b = binary.AppendUvarint(append(b, tagStrList), uint64(len(x)))
		for _, e := range x {
			b = appendString(b, e)
		}
		return b, nil
	case []map[string]any:
		if x == nil {
			return append(b, tagNilMapList), nil
		}
		b = binary.AppendUvarint(append(b, tagMapList), uint64(len(x)))
		for _, m := range x {
			var err error
			if b, err = appendValue(b, m, depth+1); err != nil {
				return b, err
			}
		}
		return b, nil
	}
	return b, fmt.Errorf("wiredoc: cannot encode a %T", v)
}

func appendMap(b []byte, m map[string]any, depth int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(m)))
	for k, e := range m {
		b = appendString(b, k)
		var err error
		if b, err = appendValue(b, e, depth+1); err != nil {
			return b, err
		}
	}
	return b, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ErrCorrupt is what Decode returns for bytes Append did not write.
var ErrCorrupt = errors.New("wiredoc: corrupt encoding")

// Decode decodes one value Append wrote, the whole of b.
func Decode(b []byte) (any, error) { return DecodeString(string(b)) }

// DecodeString is Decode of an encoding held as a string: the strings it
// decodes are substrings of s rather than copies, so a caller that holds
// the encoding as a string already (a file it keeps) allocates none, and
// Decode copies its bytes once rather than string by string.
func DecodeString(s string) (any, error) {
	d := decoder{s: s}
	v := d.value(0)
	if d.err == nil && d.i != len(d.s) {
		d.err = ErrCorrupt
	}
	return v, d.err
}

// decoder reads s from i; the first error stops it. Every count is checked
// against the bytes left (each element takes at least one), and what a
// count asks for is allocated as its elements arrive, past a first
// preallocMax: nested lists that each claim the rest of the input cannot
// make it allocate more than a constant times its size.
type decoder struct {
	s   string
	i   int
	err error
}

const preallocMax = 64

func (d *decoder) fail() {
	if d.err == nil {
		d.err = ErrCorrupt
	}
}

func (d *decoder) value(depth int) any {
	if d.err != nil || d.i >= len(d.s) || depth > MaxDepth {
		d.fail()
		return nil
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagString:
		return d.string()
	case tagInt64:
		return d.varint()
	case tagFloat64:
		return math.Float64frombits(d.fixed(8))
	case tagMap:
		return d.mapping(depth)
	case tagList:
		n := d.count(1)
		l := make([]any, 0, min(n, preallocMax))
		for j := 0; j < n && d.err == nil; j++ {
			l = append(l, d.value(depth+1))
		}
		return l
	case tagNilList:
		return []any(nil)
	case tagNilMap:
		return map[string]any(nil)
	}
	return d.other(tag, depth)
}

// other decodes the tags appendOther writes.
func (d *decoder) other(tag byte, depth int) any {
	switch tag {
	case tagInt:
		return int(d.signed(math.MinInt, math.MaxInt))
	case tagInt8:
		return int8(d.signed(math.MinInt8, math.MaxInt8))
	case tagInt16:
		return int16(d.signed(math.MinInt16, math.MaxInt16))
	case tagInt32:
		return int32(d.signed(math.MinInt32, math.MaxInt32))
	case tagUint:
		return uint(d.unsigned(math.MaxUint))
	case tagUint8:
		return uint8(d.unsigned(math.MaxUint8))
	case tagUint16:
		return uint16(d.unsigned(math.MaxUint16))
	case tagUint32:
		return uint32(d.unsigned(math.MaxUint32))
	case tagUint64:
		return d.uvarint()
	case tagFloat32:
		return math.Float32frombits(uint32(d.fixed(4)))
	case tagNilStrMap:
		return map[string]string(nil)
	case tagNilStrList:
		return []string(nil)
	case tagNilMapList:
		return []map[string]any(nil)
	}
	return d.lists(tag, depth)
}

// lists decodes the typed lists and maps appendOther writes.
func (d *decoder) lists(tag byte, depth int) any {
	switch tag {
	case tagStrMap:
		n := d.count(2)
		m := make(map[string]string, min(n, preallocMax))
		for j := 0; j < n && d.err == nil; j++ {
			k := d.string()
			if _, dup := m[k]; dup {
				d.fail()
			}
			m[k] = d.string()
		}
		return m
	case tagStrList:
		n := d.count(1)
		l := make([]string, 0, min(n, preallocMax))
		for j := 0; j < n && d.err == nil; j++ {
			l = append(l, d.string())
		}
		return l
	case tagMapList:
		n := d.count(1)
		l := make([]map[string]any, 0, min(n, preallocMax))
		for j := 0; j < n && d.err == nil; j++ {
			m, ok := d.value(depth + 1).(map[string]any)
			if !ok {
				d.fail()
			}
			l = append(l, m)
		}
		return l
	}
	d.fail()
	return nil
}

func (d *decoder) mapping(depth int) map[string]any {
	n := d.count(2)
	m := make(map[string]any, min(n, preallocMax))
	for j := 0; j < n && d.err == nil; j++ {
		k := d.string()
		if _, dup := m[k]; dup {
			d.fail()
		}
		m[k] = d.value(depth + 1)
	}
	return m
}

// signed and unsigned read a number that must fit the type it decodes to.
func (d *decoder) signed(lo, hi int64) int64 {
	v := d.varint()
	if v < lo || v > hi {
		d.fail()
		return 0
	}
	return v
}

func (d *decoder) unsigned(hi uint64) uint64 {
	v := d.uvarint()
	if v > hi {
		d.fail()
		return 0
	}
	return v
}

// count reads a length whose elements take at least min bytes each.
func (d *decoder) count(min int) int {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)-d.i)/uint64(min) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)-d.i) {
		d.fail()
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *decoder) uvarint() uint64 { return readNumber(d, Uvarint) }
func (d *decoder) varint() int64   { return readNumber(d, Varint) }

// readNumber reads one number with read (Uvarint or Varint).
func readNumber[T uint64 | int64](d *decoder, read func(string) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.s[d.i:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.i += n
	return v
}

// Uvarint is binary.Uvarint of a string: the number and the bytes it
// took; 0 bytes when s ends first, fewer than 0 when it overflows 64 bits.
func Uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s); i++ {
		if i == binary.MaxVarintLen64 {
			return 0, -(i + 1) // overflow
		}
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -(i + 1) // overflow
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

// Varint is binary.Varint of a string: what binary.AppendVarint wrote
// (zig-zag over Uvarint), and the bytes it took as Uvarint says.
func Varint(s string) (int64, int) {
	ux, n := Uvarint(s)
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x, n
}

// fixed reads a little-endian number of size bytes (4 or 8).
func (d *decoder) fixed(size int) uint64 {
	if d.i+size > len(d.s) {
		d.fail()
		return 0
	}
	var v uint64
	for k := size - 1; k >= 0; k-- {
		v = v<<8 | uint64(d.s[d.i+k])
	}
	d.i += size
	return v
}
