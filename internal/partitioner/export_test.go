package partitioner

// Murmur2KnownKeys are the keys of murmur2Known, for the tests of package
// partitioner_test.
func Murmur2KnownKeys() []string {
	keys := make([]string, len(murmur2Known))
	for i, c := range murmur2Known {
		keys[i] = c.key
	}
	return keys
}
