/*
 * The Scheme of `layer:adjust` and `filter:apply` (`filters.ts` writes the procedure calls), loaded with the library.
 */
export const EDIT_FILTER_SCHEME = `
; Runs thunk (PDB calls on layer l) as one undo step, after checking l is a layer of img whose pixels may change.
(define (br-pixels img l thunk)
  (br-unlocked (br-layer img l))
  (br-edit img (lambda () (thunk) l)))

; A gradient map through a gradient made of stops ((location (r g b)) ...), locations 0-1 ascending: one linear
; segment between each two stops (flat before the first and after the last), removed again after plug-in-gradmap.
(define (br-gradient-map l stops)
  (let* ((img (car (gimp-item-get-image l)))
         (points (append (if (> (car (car stops)) 0) (list (list 0 (cadr (car stops)))) '())
                         stops
                         (let ((last (car (last-pair stops)))) (if (< (car last) 1) (list (list 1 (cadr last))) '()))))
         (n (- (length points) 1))
         (g (car (gimp-gradient-new "image-editor-bridge map"))))
    (if (> n 1) (gimp-gradient-segment-range-split-uniform g 0 0 n))
    (let loop ((i 0) (ps points))
      (if (< i n)
          (let ((a (car ps)) (b (cadr ps)))
            (gimp-gradient-segment-set-right-pos g i (max (car a) (min 1 (car b))))
            (gimp-gradient-segment-set-left-pos g i (car a))
            (gimp-gradient-segment-set-middle-pos g i (/ (+ (car a) (max (car a) (car b))) 2))
            (gimp-gradient-segment-set-left-color g i (cadr a) 100)
            (gimp-gradient-segment-set-right-color g i (cadr b) 100)
            (loop (+ i 1) (cdr ps)))))
    (gimp-context-set-gradient g)
    (plug-in-gradmap RUN-NONINTERACTIVE img l)
    (gimp-gradient-delete g)))

; The drawable d of the temporary image ti grown by m pixels on each side, the new border repeating d's edge pixels
; (each edge row or column pasted and stretched m wide, nearest neighbour), so that a procedure reading past d's
; edge sees what the embedded editor's filters see there. d ends up at 0,0 of ti, its pixels at m,m.
(define (br-pad-edges ti d m)
  (let ((w (car (gimp-drawable-width d))) (h (car (gimp-drawable-height d))))
    (gimp-image-resize ti (+ w m m) (+ h m m) m m)
    (gimp-layer-resize-to-image-size d)
    (gimp-context-push)
    (gimp-context-set-interpolation INTERPOLATION-NONE)
    (br-stretch ti d m m 1 h 0 m m h)
    (br-stretch ti d (+ m w -1) m 1 h (+ m w) m m h)
    (br-stretch ti d 0 m (+ w m m) 1 0 0 (+ w m m) m)
    (br-stretch ti d 0 (+ m h -1) (+ w m m) 1 0 (+ m h) (+ w m m) m)
    (gimp-context-pop)
    (gimp-selection-none ti)))

; The x,y w×h pixels of d (in temporary image ti) stretched over tx,ty tw×th.
(define (br-stretch ti d x y w h tx ty tw th)
  (gimp-image-select-rectangle ti CHANNEL-OP-REPLACE x y w h)
  (let* ((name (car (gimp-edit-named-copy d "image-editor-bridge edge")))
         (fs (car (gimp-edit-named-paste d name FALSE))))
    (gimp-item-transform-scale fs tx ty (+ tx tw) (+ ty th))
    (gimp-floating-sel-anchor fs)
    (gimp-buffer-delete name)))

; compute run on a copy of layer l in a temporary image, grown by m pixels of repeated edge (br-pad-edges), at the
; precision of l's image. compute answers the drawable holding the result (the copy, or a drawable of another image
; it made, of the same size); its middle is pasted back onto l where the selection lets it (all of l without one),
; and the temporary images are deleted.
(define (br-padded l m compute)
  (let* ((img (car (gimp-item-get-image l)))
         (w (car (gimp-drawable-width l)))
         (h (car (gimp-drawable-height l)))
         (ti (car (gimp-image-new w h RGB))))
    (gimp-image-undo-disable ti)
    (if (not (= (car (gimp-image-get-precision ti)) (car (gimp-image-get-precision img))))
        (gimp-image-convert-precision ti (car (gimp-image-get-precision img))))
    (let ((d (car (gimp-layer-new-from-drawable l ti))))
      (gimp-image-insert-layer ti d 0 0)
      (gimp-layer-set-offsets d 0 0)
      (if (= (car (gimp-drawable-has-alpha d)) FALSE) (gimp-layer-add-alpha d))
      (br-pad-edges ti d m)
      (let* ((out (compute d))
             (oi (car (gimp-item-get-image out))))
        (gimp-image-select-rectangle oi CHANNEL-OP-REPLACE m m w h)
        (let* ((name (car (gimp-edit-named-copy out "image-editor-bridge result")))
               (into (if (= (car (gimp-selection-is-empty img)) TRUE) FALSE TRUE))
               (fs (car (gimp-edit-named-paste l name into)))
               (offsets (gimp-drawable-offsets l)))
          (gimp-layer-set-offsets fs (car offsets) (cadr offsets))
          (gimp-floating-sel-anchor fs)
          (gimp-buffer-delete name))
        (if (not (= oi ti)) (gimp-image-delete oi))
        (gimp-image-delete ti)))))

; Each channel's own median over the (2r + 1)² square of d (as libvips's): plug-in-despeckle picks the pixel of
; median luminance, which on a grey image is the median value; so d is split into one grey image a channel (red,
; green, blue, alpha), each despeckled, and put together again: the answer is the drawable of that new image.
(define (br-median d r)
  (let* ((parts (plug-in-decompose RUN-NONINTERACTIVE (car (gimp-item-get-image d)) d "RGBA" FALSE))
         (greys (list (car parts) (cadr parts) (caddr parts) (cadddr parts))))
    (for-each (lambda (g) (plug-in-despeckle RUN-NONINTERACTIVE g (car (gimp-image-get-active-drawable g)) r 0 -1 256)) greys)
    (let ((whole (car (plug-in-compose RUN-NONINTERACTIVE (car greys) (car (gimp-image-get-active-drawable (car greys)))
                                       (cadr greys) (caddr greys) (cadddr greys) "RGBA"))))
      (for-each gimp-image-delete greys)
      (car (gimp-image-get-active-drawable whole)))))
`;
