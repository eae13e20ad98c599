/*
 * The Scheme of document edits (loaded with the library): size, canvas, crop, rotation, flips, copies, flattening
 * and trimming, each one undo step of the image (`br-edit`).
 */
export const EDIT_DOCUMENT_SCHEME = `
(define (br-last xs) (if (null? (cdr xs)) (car xs) (br-last (cdr xs))))

; GIMP's background layer: the bottom layer of the image when it has no alpha channel (or -1).
(define (br-background img)
  (let ((layers (br-layers-of img 0)))
    (if (null? layers) -1
        (let ((l (br-last layers)))
          (if (and (= (car (gimp-item-is-group l)) 0) (= (car (gimp-drawable-has-alpha l)) 0)) l -1)))))

; The background layer grown to the canvas, its new area filled with a colour (alpha 0-255); it keeps no alpha
; channel when the colour is opaque.
(define (br-grow-background img l r g b a)
  (gimp-layer-add-alpha l)
  (gimp-layer-resize-to-image-size l)
  (br-unselected img (lambda () (if (> a 0) (br-paint l r g b (/ (* 100 a) 255) LAYER-MODE-BEHIND))))
  (if (= a 255) (gimp-layer-flatten l)))

(define (br-doc-resize img w h res interpolation)
  (br-image img)
  (br-edit img (lambda ()
    (gimp-context-set-interpolation interpolation)
    (if (not (and (= w (car (gimp-image-width img))) (= h (car (gimp-image-height img))))) (gimp-image-scale img w h))
    (gimp-image-set-resolution img res res)
    #t)))

(define (br-doc-canvas img w h x y r g b a)
  (br-image img)
  (br-edit img (lambda ()
    (let ((bg (br-background img)))
      (gimp-image-resize img w h x y)
      (if (>= bg 0) (br-grow-background img bg r g b a))
      #t))))

(define (br-doc-crop img x y w h)
  (br-image img)
  (br-edit img (lambda () (gimp-image-crop img w h x y) #t)))

; Degrees clockwise in [0, 360). Quarter turns are exact; other angles rotate every top-level layer about the
; canvas centre and grow the canvas to hold them (the background's new area white), refused past max pixels.
(define (br-doc-rotate img angle max)
  (br-image img)
  (let ((size (br-rotated-size img angle)))
    (br-fits (car size) (cadr size) max))
  (br-edit img (lambda ()
    (cond ((= angle 0) #t)
          ((= angle 90) (gimp-image-rotate img ROTATE-90))
          ((= angle 180) (gimp-image-rotate img ROTATE-180))
          ((= angle 270) (gimp-image-rotate img ROTATE-270))
          (else (br-rotate-free img angle)))
    #t)))

; The canvas (w h) that holds the whole image turned by angle degrees.
(define (br-rotated-size img angle)
  (let ((w (car (gimp-image-width img))) (h (car (gimp-image-height img)))
        (rad (/ (* angle 3.141592653589793) 180)))
    (list (inexact->exact (ceiling (- (+ (abs (* w (cos rad))) (abs (* h (sin rad)))) 1e-9)))
          (inexact->exact (ceiling (- (+ (abs (* w (sin rad))) (abs (* h (cos rad)))) 1e-9))))))

(define (br-rotate-free img angle)
  (let* ((w (car (gimp-image-width img))) (h (car (gimp-image-height img)))
         (rad (/ (* angle 3.141592653589793) 180))
         (size (br-rotated-size img angle))
         (nw (car size)) (nh (cadr size))
         (bg (br-background img)))
    (if (>= bg 0) (gimp-layer-add-alpha bg))
    (br-unselected img (lambda ()
      (gimp-context-set-interpolation INTERPOLATION-CUBIC)
      (gimp-context-set-transform-direction TRANSFORM-FORWARD)
      (gimp-context-set-transform-resize TRANSFORM-RESIZE-ADJUST)
      (for-each (lambda (l) (gimp-item-transform-rotate l rad FALSE (/ w 2) (/ h 2))) (br-layers-of img 0))))
    (gimp-image-resize img nw nh (round (/ (- nw w) 2)) (round (/ (- nh h) 2)))
    (if (>= bg 0) (br-grow-background img bg 255 255 255 255))))

; 1 horizontal, 2 vertical, 3 both.
(define (br-doc-flip img how)
  (br-image img)
  (br-edit img (lambda ()
    (if (odd? how) (gimp-image-flip img ORIENTATION-HORIZONTAL))
    (if (>= how 2) (gimp-image-flip img ORIENTATION-VERTICAL))
    #t)))

; A copy of the image named name; answers the copy's id.
(define (br-doc-duplicate img name)
  (br-image img)
  (let ((d (car (gimp-image-duplicate img))))
    (br-set-name d name)
    d))

(define (br-doc-flatten img)
  (br-image img)
  (if (= (car (gimp-image-get-layers img)) 0) (br-bad "The image has no layers to flatten"))
  (br-edit img (lambda () (car (gimp-image-flatten img)))))

; The bounds (x1 y1 x2 y2) of the composite's pixels that are not fully transparent, or () when there are none.
(define (br-opaque-bounds img)
  (if (null? (br-visible (br-layers-of img 0))) '()
      (let* ((dup (car (gimp-image-duplicate img)))
             (m (car (gimp-image-merge-visible-layers dup CLIP-TO-IMAGE))))
        (gimp-image-select-item dup CHANNEL-OP-REPLACE m)
        (let ((b (gimp-selection-bounds dup)))
          (gimp-image-delete dup)
          (if (= (car b) 0) '() (cdr b))))))

(define (br-visible layers) (cond ((null? layers) '()) ((= (car (gimp-item-get-visible (car layers))) 1) layers) (else (br-visible (cdr layers)))))

(define (br-doc-trim img)
  (br-image img)
  (let ((b (br-opaque-bounds img)))
    (br-edit img (lambda ()
      (if (and (pair? b)
               (not (and (= (car b) 0) (= (cadr b) 0) (= (caddr b) (car (gimp-image-width img))) (= (cadddr b) (car (gimp-image-height img))))))
          (gimp-image-crop img (- (caddr b) (car b)) (- (cadddr b) (cadr b)) (car b) (cadr b)))
      #t))))
`;
