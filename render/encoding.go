package render

import (
	"bytes"
	"unicode/utf16"
)

// normalizeText turns a YAML file into what the decoder reads: UTF-8 with
// "\n" line breaks. A UTF-16 file (with a byte-order mark) is converted,
// and CR-only or CRLF line breaks become "\n" (YAML counts a lone CR as a
// line break, so lines keep their numbers). note says what was converted,
// "" when nothing was.
func normalizeText(data []byte) ([]byte, string) {
	var note string
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		data, note = fromUTF16(data), "UTF-16"
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	}
	if bytes.IndexByte(data, '\r') >= 0 {
		crOnly := !bytes.Contains(data, []byte("\r\n"))
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
		if crOnly && note == "" {
			note = "CR-only line breaks"
		}
	}
	return data, note
}

// fromUTF16 decodes UTF-16 with its byte-order mark into UTF-8.
func fromUTF16(data []byte) []byte {
	big := data[0] == 0xFE
	data = data[2:]
	units := make([]uint16, len(data)/2)
	for i := range units {
		lo, hi := data[2*i], data[2*i+1]
		if big {
			lo, hi = hi, lo
		}
		units[i] = uint16(lo) | uint16(hi)<<8
	}
	return []byte(string(utf16.Decode(units)))
}
