/*
 * The Scheme of text layers (loaded with the library): making one (`gimp-text-layer-new`), changing one, and
 * reading one back for the layer tree. Sizes arrive in pixels (the adapter turns points into pixels with the
 * image's resolution). GIMP lays a text layer's first line out from the layer's top edge; the bridge places the
 * first baseline, so a point text layer goes up by the font's ascent (`gimp-text-get-extents-fontname`), and left
 * by half its width (centre) or all of it (right). What that placement was is kept on the layer as the parasite
 * `bridge-text`: `b` for a box, `p <dx> <dy>` for a point that far from the layer's top-left corner, so reading
 * the layer back gives the same point even after the layer moved.
 */
export const EDIT_TEXT_SCHEME = `
(define br-text-sample "X")

; A text layer's type size in pixels, whatever unit it was set in (GIMP's units count per inch).
(define (br-text-px l size unit)
  (if (= unit 0) size
      (* size (/ (car (gimp-image-get-resolution (car (gimp-item-get-image l)))) (car (gimp-unit-get-factor unit))))))

(define (br-points img pt) (/ (* pt (car (gimp-image-get-resolution img))) 72))

(define (br-text-mark l data)
  (gimp-item-attach-parasite l (list "bridge-text" 3 data)))

(define (br-text-mark-of l)
  (if (member "bridge-text" (cadr (gimp-item-get-parasite-list l)))
      (caddr (car (gimp-item-get-parasite l "bridge-text")))
      ""))

; Text and settings; px: the size in pixels; ls, letter: line and letter spacing in pixels; dir: 0 ltr, 1 rtl.
(define (br-text-style l text font px r g b justify ls letter aa dir lang)
  (gimp-text-layer-set-text l text)
  (gimp-text-layer-set-font l font)
  (gimp-text-layer-set-font-size l px 0)
  (gimp-text-layer-set-color l (list r g b))
  (gimp-text-layer-set-justification l justify)
  (gimp-text-layer-set-line-spacing l ls)
  (gimp-text-layer-set-letter-spacing l letter)
  (gimp-text-layer-set-antialias l aa)
  (gimp-text-layer-set-base-direction l dir)
  (if (not (string=? lang "")) (gimp-text-layer-set-language l lang)))

; A box (w > 0): the layer is that box at (x y). A point: the first baseline starts at (x y), at the left end of the
; line for left and justified text, its middle for centred, its right end for right-aligned (justify 2, 1).
(define (br-text-place l font px justify x y w h)
  (if (> w 0)
      (begin (gimp-text-layer-resize l w h) (gimp-layer-set-offsets l x y) (br-text-mark l "b"))
      (let* ((ascent (caddr (gimp-text-get-extents-fontname br-text-sample px 0 font)))
             (width (car (gimp-drawable-width l)))
             (along (cond ((= justify 2) (/ width 2)) ((= justify 1) width) (else 0)))
             (ox (inexact->exact (round (- x along))))
             (oy (inexact->exact (round (- y ascent)))))
        (gimp-layer-set-offsets l ox oy)
        (br-text-mark l (string-append "p " (number->string (- x ox)) " " (number->string (- y oy)))))))

; The line spacing GIMP adds between lines for a distance of leading px between baselines (0: the font's own).
(define (br-text-spacing font px leading)
  (if (<= leading 0) 0
      (let ((e (gimp-text-get-extents-fontname br-text-sample px 0 font)))
        (- leading (- (caddr e) (cadddr e))))))

; size and leading (0: the font's own) in points, tracking in ems.
(define (br-text-create img name text font size r g b justify leading tracking aa dir lang x y w h where target)
  (br-image img)
  (let ((place (br-where img where target -1))
        (px (br-points img size))
        (leading (br-points img leading)))
    (br-edit img (lambda ()
      (let ((l (car (gimp-text-layer-new img text font px 0))))
        (gimp-image-insert-layer img l (car place) (cadr place))
        (gimp-item-set-name l name)
        (br-text-style l text font px r g b justify (br-text-spacing font px leading) (* px tracking) aa dir lang)
        (br-text-place l font px justify x y w h)
        (gimp-image-set-active-layer img l)
        l)))))

; GIMP 2.10 has no procedure that turns a box back into point text: a box layer given a point is refused.
(define (br-text-update img l text font size r g b justify leading tracking aa dir lang x y w h)
  (br-layer img l)
  (if (= (car (gimp-item-is-text-layer l)) 0) (br-bad (string-append "Layer " (number->string l) " is not a text layer")))
  (if (and (<= w 0) (string=? (br-text-mark-of l) "b")) (br-fail "TEXT_BOX" (number->string l)))
  (let ((px (br-points img size)) (leading (br-points img leading)))
    (br-edit img (lambda ()
      (br-text-style l text font px r g b justify (br-text-spacing font px leading) (* px tracking) aa dir lang)
      (br-text-place l font px justify x y w h)
      l))))

; A text layer as the tree reports it: (text font px resolution (r g b) justify line-spacing letter-spacing
; antialias direction language mark ascent line-height), the last two 0 unless reading the layer needs them (a
; layer without the bridge's mark, or with line spacing).
(define (br-text-info l)
  (let* ((fs (gimp-text-layer-get-font-size l))
         (px (br-text-px l (car fs) (cadr fs)))
         (font (car (gimp-text-layer-get-font l)))
         (ls (car (gimp-text-layer-get-line-spacing l)))
         (mark (br-text-mark-of l))
         (e (if (or (string=? mark "") (not (= ls 0))) (gimp-text-get-extents-fontname br-text-sample px 0 font) '(0 0 0 0))))
    (list (car (gimp-text-layer-get-text l)) font px (car (gimp-image-get-resolution (car (gimp-item-get-image l))))
          (car (gimp-text-layer-get-color l)) (car (gimp-text-layer-get-justification l)) ls
          (car (gimp-text-layer-get-letter-spacing l)) (car (gimp-text-layer-get-antialias l))
          (car (gimp-text-layer-get-base-direction l)) (car (gimp-text-layer-get-language l))
          mark (caddr e) (- (caddr e) (cadddr e)))))
`;
