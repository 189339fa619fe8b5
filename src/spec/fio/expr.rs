//! fio's arithmetic in parentheses, `(4k*2)`, over numbers that the caller reads (sizes or
//! times); bounded in depth so that no input can overflow the stack.

/// fio's arithmetic in parentheses: + - * / % ^ and nested parentheses over numbers with
/// units (each read by `atom`).
pub(super) struct Expr<'a> {
    s: &'a [u8],
    pos: usize,
    /// Parentheses, signs and powers open now: each is a recursion, so it is bounded.
    depth: usize,
    text: &'a str,
    atom: &'a dyn Fn(&str) -> std::result::Result<i128, String>,
}

/// Far more nesting than any job file needs, and far less than would exhaust the stack.
const MAX_EXPR_DEPTH: usize = 64;

impl<'a> Expr<'a> {
    pub(super) fn new(
        text: &'a str,
        atom: &'a dyn Fn(&str) -> std::result::Result<i128, String>,
    ) -> Self {
        Expr {
            s: text.as_bytes(),
            pos: 0,
            depth: 0,
            text,
            atom,
        }
    }

    pub(super) fn eval(mut self) -> std::result::Result<i128, String> {
        let v = self.sum()?;
        self.skip();
        if self.pos != self.s.len() {
            return Err(format!("'({})' is not an expression fio takes", self.text));
        }
        Ok(v)
    }

    fn skip(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        self.s.get(self.pos).copied()
    }

    fn sum(&mut self) -> std::result::Result<i128, String> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.product()?;
            let v2 = if op == b'+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            };
            v = v2.ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn overflow(&self) -> String {
        format!("'({})' overflows", self.text)
    }

    fn product(&mut self) -> std::result::Result<i128, String> {
        let mut v = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let r = self.power()?;
            v = match op {
                b'*' => v.checked_mul(r),
                _ if r == 0 => return Err(format!("'({})' divides by zero", self.text)),
                b'/' => v.checked_div(r),
                _ => v.checked_rem(r),
            }
            .ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn power(&mut self) -> std::result::Result<i128, String> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let e = self.nested(Self::power)?;
            let e = u32::try_from(e).map_err(|_| format!("bad exponent in '({})'", self.text))?;
            return base.checked_pow(e).ok_or_else(|| self.overflow());
        }
        Ok(base)
    }

    /// `inner`, one level deeper: a one-line error past [`MAX_EXPR_DEPTH`], not a stack
    /// overflow.
    fn nested(
        &mut self,
        inner: fn(&mut Self) -> std::result::Result<i128, String>,
    ) -> std::result::Result<i128, String> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(format!(
                "'({})' nests more than {MAX_EXPR_DEPTH} deep",
                self.text
            ));
        }
        self.depth += 1;
        let v = inner(self);
        self.depth -= 1;
        v
    }

    fn unary(&mut self) -> std::result::Result<i128, String> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                let v = self.nested(Self::unary)?;
                v.checked_neg().ok_or_else(|| self.overflow())
            }
            Some(b'(') => {
                self.pos += 1;
                let v = self.nested(Self::sum)?;
                if self.peek() != Some(b')') {
                    return Err(format!("unbalanced parentheses in '({})'", self.text));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(_) => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                let word = &self.text[start..self.pos];
                if word.is_empty() {
                    return Err(format!("'({})' is not an expression fio takes", self.text));
                }
                (self.atom)(word)
            }
            None => Err(format!("'({})' ends too early", self.text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::fio::{parse_size, parse_time_ns};

    /// Found by fuzzing (fuzz/fuzz_targets/numbers.rs): each panicked (an overflow) or
    /// overflowed the stack.
    #[test]
    fn arithmetic_that_overflows_or_nests_too_deep_is_an_error() {
        let min = "((0-2^126)*2)";
        for (text, want) in [
            ("((0-2^126)*2/(0-1))", "overflows"),
            ("((0-2^126)*2%(0-1))", "overflows"),
            ("(-((0-2^126)*2))", "overflows"),
            ("(2^126+2^126)", "overflows"),
            ("((0-2^126)*2-1)", "overflows"),
            ("(2^200)", "overflows"),
        ] {
            let e = parse_size(text, 1024).unwrap_err();
            assert!(e.contains(want) && e.contains(text), "{text}: {e}");
        }
        assert!(parse_size(min, 1024).unwrap_err().contains("out of range"));
        for deep in [
            format!("({}1{})", "(".repeat(100_000), ")".repeat(100_000)),
            format!("({}1)", "-".repeat(100_000)),
            format!("({}1)", "2^".repeat(100_000)),
        ] {
            let e = parse_size(&deep, 1024).unwrap_err();
            assert!(e.contains("nests more than 64 deep"), "{e}");
            assert!(parse_time_ns(&deep, 1).is_err());
        }
        assert_eq!(
            parse_size(&format!("({}1{})", "(".repeat(60), ")".repeat(60)), 1024),
            Ok(1)
        );
    }
}
