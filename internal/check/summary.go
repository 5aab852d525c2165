package check

import "fmt"

func ptr[T any](v T) *T { return &v }

// plural returns "1 record", "2 records".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
