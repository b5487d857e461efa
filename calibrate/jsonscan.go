package calibrate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
)

// What one token of an answer may hold. No string calibrate keeps (a
// label, a value, a status) comes near maxString; Prometheus nests its
// answers six deep (a histogram's buckets eight). Beyond these an answer
// is hostile or broken, and each token is checked while it is read, so
// that it costs at most the bound.
const (
	maxString = 16 << 10
	maxNumber = 64
	maxDepth  = 64
)

// scanner reads one JSON text from a stream a token at a time, keeping
// only the token at hand. Its first error sticks: every read after it
// returns nothing, so callers check s.err once, where it matters.
type scanner struct {
	r     *bufio.Reader
	err   error
	buf   []byte // the current string or number
	depth int
}

func newScanner(r io.Reader) *scanner { return &scanner{r: bufio.NewReaderSize(r, 64<<10)} }

func (s *scanner) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// syntax fails as client_golang did on a malformed answer.
func (s *scanner) syntax(format string, args ...any) {
	s.fail(&v1.Error{Type: v1.ErrBadResponse, Msg: "malformed answer: " + fmt.Sprintf(format, args...)})
}

func (s *scanner) readFailed(err error) {
	if errors.Is(err, io.EOF) {
		s.syntax("it ends early")
		return
	}
	s.fail(err)
}

// readByte is the next byte, or 0 after an error (0 is never valid JSON
// outside a string, and inside one it is a control character).
func (s *scanner) readByte() byte {
	if s.err != nil {
		return 0
	}
	c, err := s.r.ReadByte()
	if err != nil {
		s.readFailed(err)
		return 0
	}
	return c
}

// token is the next byte that is not white space. White space is skipped
// a buffer at a time: padding costs reading, not a call per byte.
func (s *scanner) token() byte {
	for s.err == nil {
		b, err := s.r.Peek(max(s.r.Buffered(), 1))
		if err != nil {
			s.readFailed(err)
			return 0
		}
		i := 0
		for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
			i++
		}
		_, _ = s.r.Discard(i)
		if i < len(b) {
			return s.readByte()
		}
	}
	return 0
}

// peek is the next byte that is not white space, left unread.
func (s *scanner) peek() byte {
	c := s.token()
	if s.err == nil {
		_ = s.r.UnreadByte() // token's last call was ReadByte
	}
	return c
}

func (s *scanner) expect(c byte, what string) bool {
	if got := s.token(); got != c && s.err == nil {
		s.syntax("%s expected, %q found", what, got)
	}
	return s.err == nil
}

// null reads a null if one is next.
func (s *scanner) null() bool {
	if s.peek() != 'n' {
		return false
	}
	if string(s.word()) != "null" {
		s.syntax("a value expected")
	}
	return true
}

// open enters an object or array.
func (s *scanner) open(c byte, what string) bool {
	if !s.expect(c, what) {
		return false
	}
	if s.depth++; s.depth > maxDepth {
		s.fail(&LimitError{What: fmt.Sprintf("nests deeper than %d", maxDepth)})
	}
	return s.err == nil
}

// object reads an object, calling member with each key; member must read
// the key's value. key is the scanner's buffer: member copies what it
// keeps of it before reading the value.
func (s *scanner) object(member func(key []byte)) {
	if !s.open('{', "an object") {
		return
	}
	defer func() { s.depth-- }()
	if s.peek() == '}' {
		s.token()
		return
	}
	for s.err == nil {
		key := s.str(true)
		if !s.expect(':', "':'") {
			return
		}
		member(key)
		if c := s.token(); c != ',' {
			if c != '}' && s.err == nil {
				s.syntax("',' or '}' expected, %q found", c)
			}
			return
		}
	}
}

// array reads an array, calling elem to read each element.
func (s *scanner) array(elem func()) {
	if !s.open('[', "an array") {
		return
	}
	defer func() { s.depth-- }()
	if s.peek() == ']' {
		s.token()
		return
	}
	for s.err == nil {
		elem()
		if c := s.token(); c != ',' {
			if c != ']' && s.err == nil {
				s.syntax("',' or ']' expected, %q found", c)
			}
			return
		}
	}
}

// skip reads past any value, keeping nothing.
func (s *scanner) skip() {
	switch s.peek() {
	case '{':
		s.object(func([]byte) { s.skip() })
	case '[':
		s.array(s.skip)
	case '"':
		s.str(false)
	default:
		w := s.word()
		if s.err == nil && string(w) != "true" && string(w) != "false" && string(w) != "null" && !validNumber(w) {
			s.syntax("a value expected, %q found", w)
		}
	}
}

// word reads the bytes of a number or literal (at most maxNumber).
func (s *scanner) word() []byte {
	s.buf = s.buf[:0]
	for s.err == nil {
		c := s.readByte()
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '+' || c == '-') {
			if s.err == nil {
				_ = s.r.UnreadByte()
			}
			break
		}
		if s.buf = append(s.buf, c); len(s.buf) > maxNumber {
			s.syntax("a number longer than %d bytes", maxNumber)
		}
	}
	return s.buf
}

// validNumber: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	digits := func() bool {
		n := 0
		for len(b) > 0 && '0' <= b[0] && b[0] <= '9' {
			b, n = b[1:], n+1
		}
		return n > 0
	}
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) > 1 && b[0] == '0' && '0' <= b[1] && b[1] <= '9' || !digits() {
		return false
	}
	if len(b) > 0 && b[0] == '.' {
		if b = b[1:]; !digits() {
			return false
		}
	}
	if len(b) > 0 && (b[0] == 'e' || b[0] == 'E') {
		if b = b[1:]; len(b) > 0 && (b[0] == '+' || b[0] == '-') {
			b = b[1:]
		}
		if !digits() {
			return false
		}
	}
	return len(b) == 0
}

// str reads a string into s.buf, as encoding/json decodes one: control
// characters are errors, and bytes that are not UTF-8 and lone surrogates
// become U+FFFD. Unless keep, nothing is kept, so that a string that is
// skipped is not bounded.
func (s *scanner) str(keep bool) []byte {
	s.buf = s.buf[:0]
	if !s.expect('"', "a string") {
		return nil
	}
	ascii := true
	for {
		c := s.readByte()
		switch {
		case s.err != nil:
			return nil
		case c == '"':
			if !ascii && !utf8.Valid(s.buf) {
				s.buf = []byte(string([]rune(string(s.buf)))) // each invalid byte becomes U+FFFD
			}
			return s.buf
		case c == '\\':
			s.escape(keep)
		case c < 0x20:
			s.syntax("a control character in a string")
		case keep:
			ascii = ascii && c < utf8.RuneSelf
			s.buf = append(s.buf, c)
		}
		if len(s.buf) > maxString {
			s.fail(&LimitError{What: fmt.Sprintf("has a string longer than %d KiB", maxString>>10)})
		}
	}
}

func (s *scanner) escape(keep bool) {
	c := s.readByte()
	r := rune(c)
	switch c {
	case '"', '\\', '/':
	case 'b':
		r = '\b'
	case 'f':
		r = '\f'
	case 'n':
		r = '\n'
	case 'r':
		r = '\r'
	case 't':
		r = '\t'
	case 'u':
		r = s.hex4()
		if utf16.IsSurrogate(r) {
			r = s.lowSurrogate(r)
		}
	default:
		s.syntax("an unknown escape \\%c", c)
	}
	if keep {
		s.buf = utf8.AppendRune(s.buf, r)
	}
}

func (s *scanner) hex4() rune {
	var r rune
	for i := 0; i < 4; i++ {
		d := unhex(s.readByte())
		if d < 0 {
			s.syntax("a \\u escape of fewer than four hex digits")
			return utf8.RuneError
		}
		r = r<<4 | d
	}
	return r
}

// unhex is a hex digit's value, -1 for any other byte.
func unhex(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// lowSurrogate completes the high surrogate hi with the \u escape that
// follows, if it is its low half; else hi is U+FFFD and the next escape is
// read on its own (encoding/json's rule).
func (s *scanner) lowSurrogate(hi rune) rune {
	b, err := s.r.Peek(6)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		s.fail(err)
		return utf8.RuneError
	}
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return utf8.RuneError
	}
	lo := rune(0)
	for _, c := range b[2:] {
		d := unhex(c)
		if d < 0 {
			return utf8.RuneError
		}
		lo = lo<<4 | d
	}
	r := utf16.DecodeRune(hi, lo)
	if r != utf8.RuneError {
		_, _ = s.r.Discard(6)
	}
	return r
}
