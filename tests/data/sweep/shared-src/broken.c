int main(void) { return this_is_not_c }
