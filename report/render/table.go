package render

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table lays out columns: text columns left-aligned, numeric ones right-aligned, two spaces apart.
type table struct {
	head  []string
	right []bool
	rows  [][]string
	// color, when set, styles the last column's cells (a status word) after alignment.
	color func(string) string
}

func newTable(head ...string) *table {
	return &table{head: head, right: make([]bool, len(head))}
}

// alignRight marks columns (by index) as numeric.
func (t *table) alignRight(cols ...int) *table {
	for _, c := range cols {
		t.right[c] = true
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// widths returns each column's width.
func (t *table) widths() []int {
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	return width
}

// fit shortens the text of the given columns (names), longest first, with a "…" in the middle, until
// a line fits width; a name keeps at least 8 characters.
func (t *table) fit(width int, cols ...int) {
	const minName = 8
	for {
		ws := t.widths()
		total := 2 * (len(ws) - 1)
		for _, x := range ws {
			total += x
		}
		if total <= width {
			return
		}
		widest := -1
		for _, c := range cols {
			if ws[c] > minName && (widest < 0 || ws[c] > ws[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			return
		}
		limit := max(minName, ws[widest]-(total-width))
		for _, r := range t.rows {
			r[widest] = shorten(r[widest], limit)
		}
	}
}

// Shorten keeps the start and end of s in n characters: "lmdb-go-b…ed".
func Shorten(s string, n int) string { return shorten(s, n) }

func shorten(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(rs[:head]) + "…" + string(rs[len(rs)-tail:])
}

func (t *table) write(w io.Writer) {
	width := t.widths()
	line := func(r []string, color bool) {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if t.right[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else if color && t.color != nil && c != "" {
				b.WriteString(t.color(c))
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.head, false)
	for _, r := range t.rows {
		line(r, true)
	}
}
