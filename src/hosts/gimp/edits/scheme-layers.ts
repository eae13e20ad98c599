/*
 * The Scheme of layer edits (loaded with the library). Each `br-layer-*` procedure checks its references first,
 * then makes its change as one undo step (`br-edit`); ids are GIMP's.
 */
export const EDIT_LAYER_SCHEME = `
(define (br-layer-create img kind name fill r g b opacity where target)
  (br-image img)
  (let ((place (br-where img where target -1)))
    (br-edit img (lambda ()
      (let ((l (if (= kind 1)
                   (car (gimp-layer-group-new img))
                   (car (gimp-layer-new img (car (gimp-image-width img)) (car (gimp-image-height img)) (br-new-layer-type img) name 100 LAYER-MODE-NORMAL)))))
        (gimp-image-insert-layer img l (car place) (cadr place))
        (gimp-item-set-name l name)
        ; A new group passes its layers' modes through, as GIMP's own New Layer Group does (the PDB's is normal).
        (if (= kind 1) (gimp-layer-set-mode l LAYER-MODE-PASS-THROUGH))
        (if (= kind 0)
            (begin
              (gimp-drawable-fill l FILL-TRANSPARENT)
              (if (= fill 1) (br-unselected img (lambda () (br-paint l r g b opacity LAYER-MODE-NORMAL))))))
        (gimp-image-set-active-layer img l)
        l)))))

; name is #f to keep it; visible, lock: -1 to keep, else 0/1; opacity, mode: -1 to keep.
(define (br-layer-update img l name visible opacity mode lock)
  (br-layer img l)
  (br-edit img (lambda ()
    (if name (gimp-item-set-name l name))
    (if (>= visible 0) (gimp-item-set-visible l visible))
    (if (>= opacity 0) (gimp-layer-set-opacity l opacity))
    (if (>= mode 0) (gimp-layer-set-mode l mode))
    (if (>= lock 0) (gimp-item-set-lock-content l lock))
    l)))

(define (br-layer-delete img l)
  (br-layer img l)
  (br-edit img (lambda () (gimp-image-remove-layer img l) #t)))

(define (br-layer-duplicate img l name where target)
  (br-layer img l)
  (let ((place (br-where img where target -1)))
    (br-edit img (lambda ()
      (let ((c (car (gimp-layer-copy l FALSE))))
        (gimp-image-insert-layer img c (car place) (cadr place))
        (gimp-item-set-name c name)
        (gimp-image-set-active-layer img c)
        c)))))

(define (br-layer-move img l where target)
  (br-layer img l)
  (let ((place (br-where img where target l)))
    (br-edit img (lambda () (gimp-image-reorder-item img l (car place) (cadr place)) l))))

; ids top-most first: a new group where the first was, holding them in order.
(define (br-group-layers img ids name)
  (let* ((top (car ids))
         (g (car (gimp-layer-group-new img))))
    (gimp-image-insert-layer img g (br-parent top) (car (gimp-image-get-item-position img top)))
    (gimp-item-set-name g name)
    (let loop ((rest ids) (i 0))
      (if (pair? rest) (begin (gimp-image-reorder-item img (car rest) g i) (loop (cdr rest) (+ i 1)))))
    (gimp-image-set-active-layer img g)
    g))

(define (br-layer-group img ids name)
  (for-each (lambda (l) (br-layer img l)) ids)
  (br-edit img (lambda () (br-group-layers img ids name))))

(define (br-layer-ungroup img g)
  (br-layer img g)
  (if (= (car (gimp-item-is-group g)) 0) (br-bad (string-append "Layer " (number->string g) " is not a group")))
  (br-edit img (lambda ()
    (let ((parent (br-parent g))
          (at (car (gimp-image-get-item-position img g)))
          (kids (br-layers-of img g))
          (active (= (car (gimp-image-get-active-layer img)) g)))
      (let loop ((rest kids) (i at))
        (if (pair? rest) (begin (gimp-image-reorder-item img (car rest) parent i) (loop (cdr rest) (+ i 1)))))
      (gimp-image-remove-layer img g)
      (if (and active (pair? kids)) (gimp-image-set-active-layer img (car kids)))
      #t))))

; The layers (top-most first) composited as a group would show them, as one new pixel layer where the first was.
(define (br-layer-merge img ids name)
  (for-each (lambda (l) (br-layer img l)) ids)
  (br-edit img (lambda ()
    (let* ((g (br-group-layers img ids name))
           (m (begin (gimp-layer-set-mode g LAYER-MODE-NORMAL) (car (gimp-image-merge-layer-group img g)))))
      (gimp-item-set-name m name)
      (gimp-image-set-active-layer img m)
      m))))

; A text layer becomes a pixel layer once its pixels change: two inversions change them back exactly.
(define (br-layer-rasterize img l)
  (br-unlocked (br-layer img l))
  (br-edit img (lambda ()
    (if (= (car (gimp-item-is-text-layer l)) 1)
        (br-unselected img (lambda () (gimp-drawable-invert l FALSE) (gimp-drawable-invert l FALSE))))
    l)))

(define (br-layer-fill img l r g b opacity mode)
  (br-unlocked (br-layer img l))
  (br-edit img (lambda () (br-paint l r g b opacity mode) l)))

; Clearing a layer without alpha would paint the background colour: it gets an alpha channel first.
(define (br-layer-clear img l)
  (br-unlocked (br-layer img l))
  (br-edit img (lambda () (gimp-layer-add-alpha l) (gimp-drawable-edit-clear l) l)))

; The bounds (x0 y0 x1 y1) of layer l once mapped by the matrix (a b c / d e f), grown to whole pixels.
(define (br-mapped-box l a b c d e f)
  (let* ((off (gimp-drawable-offsets l))
         (x0 (car off)) (y0 (cadr off))
         (x1 (+ x0 (car (gimp-drawable-width l)))) (y1 (+ y0 (car (gimp-drawable-height l))))
         (xs (list (+ (* a x0) (* b y0) c) (+ (* a x1) (* b y0) c) (+ (* a x0) (* b y1) c) (+ (* a x1) (* b y1) c)))
         (ys (list (+ (* d x0) (* e y0) f) (+ (* d x1) (* e y0) f) (+ (* d x0) (* e y1) f) (+ (* d x1) (* e y1) f)))
         (whole (lambda (v) (inexact->exact (round v)))))
    (list (whole (floor (apply min xs))) (whole (floor (apply min ys))) (whole (ceiling (apply max xs))) (whole (ceiling (apply max ys))))))

; how: 1 a whole-pixel move (dx dy in c and f); 2 quarter turns (clockwise), then a horizontal mirror (mirror 1),
; then a whole-pixel move, all exact; 0 the affine matrix (a b c / d e f), resampled. max: most pixels the layer
; may have after.
(define (br-layer-transform img l how quarters mirror a b c d e f interpolation max)
  (br-unlocked (br-layer img l))
  (if (= (car (gimp-item-get-lock-position l)) 1)
      (br-bad (string-append "Layer " (number->string l) " has its position locked")))
  (let ((box (br-mapped-box l a b c d e f)))
    (br-fits (- (caddr box) (car box)) (- (cadddr box) (cadr box)) max)
    (br-edit img (lambda ()
      ; A drawable transformed while something is selected would float the selected part only.
      (br-unselected img (lambda ()
        (cond ((= how 1) (gimp-item-transform-translate l c f))
              ((= how 2)
               (if (> quarters 0) (gimp-item-transform-rotate-simple l (- quarters 1) TRUE 0 0))
               (if (= mirror 1) (gimp-item-transform-flip-simple l ORIENTATION-HORIZONTAL TRUE 0))
               (let ((off (gimp-drawable-offsets l)))
                 (gimp-item-transform-translate l (- (car box) (car off)) (- (cadr box) (cadr off)))))
              (else
               (gimp-context-set-interpolation interpolation)
               (gimp-context-set-transform-direction TRANSFORM-FORWARD)
               (gimp-context-set-transform-resize TRANSFORM-RESIZE-ADJUST)
               (gimp-item-transform-matrix l a b c d e f 0 0 1)))))
      l))))

(define (br-mask-of l) (car (gimp-layer-get-mask l)))

(define (br-with-mask img l)
  (br-layer img l)
  (if (< (br-mask-of l) 0) (br-bad (string-append "Layer " (number->string l) " has no mask")))
  l)

; type: ADD-MASK-WHITE, ADD-MASK-BLACK or ADD-MASK-SELECTION.
(define (br-mask-add img l type)
  (br-layer img l)
  (if (>= (br-mask-of l) 0) (br-bad (string-append "Layer " (number->string l) " already has a mask")))
  (br-edit img (lambda () (gimp-layer-add-mask l (car (gimp-layer-create-mask l type))) l)))

; Applying a mask also shrinks the layer to what it left showing (GIMP masks cover the whole layer; the layer's
; extent is then the mask's, as on the other editors); a layer left all transparent keeps its extent.
(define (br-mask-remove img l how)
  (br-with-mask img l)
  (if (= how MASK-APPLY) (br-unlocked l))
  (br-edit img (lambda ()
    (gimp-layer-remove-mask l how)
    (if (= how MASK-APPLY) (br-unselected img (lambda () (br-crop-to-content img l))))
    l)))

(define (br-crop-to-content img l)
  (gimp-image-select-item img CHANNEL-OP-REPLACE l)
  (let ((b (gimp-selection-bounds img)) (off (gimp-drawable-offsets l)))
    (gimp-selection-none img)
    (if (= (car b) 1)
        (let ((x0 (cadr b)) (y0 (caddr b)) (x1 (cadddr b)) (y1 (car (cddddr b))))
          (gimp-layer-resize l (- x1 x0) (- y1 y0) (- (car off) x0) (- (cadr off) y0))))))

(define (br-mask-update img l enabled)
  (br-with-mask img l)
  (br-edit img (lambda () (if (>= enabled 0) (gimp-layer-set-apply-mask l enabled)) l)))

; A GIMP mask covers its layer: grown with it, the mask hides the new part. Where the layer had no pixels (outside
; x y w h) its mask is made to reveal, as a Photoshop mask made by "reveal all" does outside its own bounds.
; Runs with nothing selected.
(define (br-reveal-outside img l x y w h)
  (let ((mask (car (gimp-layer-get-mask l))))
    (if (>= mask 0)
        (begin
          (gimp-image-select-rectangle img CHANNEL-OP-REPLACE x y w h)
          (gimp-selection-invert img)
          (gimp-drawable-edit-fill mask FILL-WHITE)
          (gimp-selection-none img)))))

; JavaScript's Math.round (halves up): Script-Fu's round takes halves to the even neighbour.
(define (br-round v) (inexact->exact (floor (+ v 0.5))))

; The image of file (iw x ih, a PNG the bridge made) into layer l, which keeps its name, place, mask, mode and
; opacity (a text layer becomes a pixel layer). fit: 0 contain, 1 cover, 2 fill, 3 none; ax ay: where the spare
; room goes (0 left/top, 1 right/bottom); bw < 0: the box is the layer's bounds, else bx by bw bh. The image is
; scaled (interpolation) and placed, rounded to whole pixels, then cut to the box; the layer becomes that rectangle.
; most: most pixels the scaled image may have.
(define (br-layer-replace img l file iw ih fit ax ay bx by bw bh interpolation most)
  (br-unlocked (br-layer img l))
  (if (= (car (gimp-item-is-group l)) 1) (br-bad (string-append "Layer " (number->string l) " is a group")))
  (let* ((off (gimp-drawable-offsets l))
         (alpha-lock (car (gimp-layer-get-lock-alpha l)))
         (ow (car (gimp-drawable-width l)))
         (oh (car (gimp-drawable-height l)))
         (box (if (>= bw 0) (list bx by bw bh) (list (car off) (cadr off) ow oh)))
         (x0 (car box)) (y0 (cadr box)) (w0 (caddr box)) (h0 (cadddr box))
         (scale (cond ((= fit 0) (min (/ w0 iw) (/ h0 ih))) ((= fit 1) (max (/ w0 iw) (/ h0 ih))) (else 1)))
         (fw (if (= fit 2) w0 (* iw scale)))
         (fh (if (= fit 2) h0 (* ih scale)))
         (left (br-round (+ x0 (* (- w0 fw) ax))))
         (top (br-round (+ y0 (* (- h0 fh) ay))))
         (width (max 1 (br-round fw)))
         (height (max 1 (br-round fh)))
         (cl (max left (br-round x0)))
         (ct (max top (br-round y0)))
         (cw (- (min (+ left width) (br-round (+ x0 w0))) cl))
         (ch (- (min (+ top height) (br-round (+ y0 h0))) ct)))
    (br-fits width height most)
    (br-edit img (lambda ()
      (br-unselected img (lambda ()
        (gimp-layer-add-alpha l)
        ; A layer's "lock alpha" would keep the old shape through the clear and the paste: off for the edit.
        (gimp-layer-set-lock-alpha l FALSE)
        (if (or (< cw 1) (< ch 1))
            ; Nothing of the image falls in the box: the layer is left one clear pixel at the box's corner.
            (begin (gimp-layer-resize l 1 1 (- (car off) cl) (- (cadr off) ct)) (br-reveal-outside img l (car off) (cadr off) ow oh) (gimp-drawable-edit-clear l))
            (let ((src (car (gimp-file-load-layer RUN-NONINTERACTIVE img file))))
              (gimp-image-insert-layer img src 0 0)
              (if (or (not (= width (car (gimp-drawable-width src)))) (not (= height (car (gimp-drawable-height src)))))
                  (begin (gimp-context-set-interpolation interpolation) (gimp-layer-scale src width height FALSE)))
              (gimp-layer-set-offsets src left top)
              (gimp-layer-resize src cw ch (- left cl) (- top ct))
              (gimp-layer-resize l cw ch (- (car off) cl) (- (cadr off) ct))
              (br-reveal-outside img l (car off) (cadr off) ow oh)
              (gimp-drawable-edit-clear l)
              (let* ((buffer (car (gimp-edit-named-copy src "br-replace")))
                     (floating (car (gimp-edit-named-paste l buffer FALSE))))
                (gimp-layer-set-offsets floating cl ct)
                (gimp-floating-sel-anchor floating)
                (gimp-buffer-delete buffer))
              (gimp-image-remove-layer img src)))
        (gimp-layer-set-lock-alpha l alpha-lock)))
      (gimp-image-set-active-layer img l)
      l))))
`;